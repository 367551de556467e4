// A table wider than the text column scrolls sideways (a long table, or any table on a phone): make
// its scroll area reachable with the keyboard too (axe: scrollable-region-focusable).
document$.subscribe(({ body }) => {
  for (const table of body.querySelectorAll(".md-typeset__scrollwrap")) {
    table.setAttribute("tabindex", "0");
  }
});
