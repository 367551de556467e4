// Typeset the math that pymdownx.arithmatex leaves in the page, with the KaTeX copy this site serves itself.
// The formulas near the screen first, as they come near it; the others in short batches while the browser is
// idle, so that a page with hundreds of formulas does not hold up its first seconds on a phone. When every formula
// is typeset, <body data-math-typeset="all"> says so (the browser tests wait for it).
document$.subscribe(({ body }) => {
  const options = {
    delimiters: [
      { left: "$$", right: "$$", display: true },
      { left: "$", right: "$", display: false },
      { left: "\\(", right: "\\)", display: false },
      { left: "\\[", right: "\\]", display: true },
    ],
    throwOnError: true,
  };
  delete body.dataset.mathTypeset;
  // Headings with math reach the navigation, the table of contents and the footer as plain text: typeset now.
  for (const part of body.querySelectorAll(".md-header, .md-sidebar, .md-footer")) {
    renderMathInElement(part, options);
  }
  const formulas = [...body.querySelectorAll(".arithmatex")];
  if (formulas.length === 0) {
    renderMathInElement(body, options); // a notebook page: math in its Markdown cells, without arithmatex
    body.dataset.mathTypeset = "all";
    return;
  }
  const pending = new Set(formulas);
  const typeset = (formula) => {
    if (!pending.delete(formula)) return;
    renderMathInElement(formula, options);
    // A wide display formula scrolls sideways on a phone: make it reachable with the keyboard too.
    if (formula.tagName === "DIV") formula.setAttribute("tabindex", "0");
    if (pending.size === 0) body.dataset.mathTypeset = "all";
  };
  const near = new IntersectionObserver(
    (entries) => {
      for (const entry of entries) {
        if (entry.isIntersecting) {
          near.unobserve(entry.target);
          typeset(entry.target);
        }
      }
    },
    { rootMargin: "600px 0px" },
  );
  for (const formula of formulas) near.observe(formula);
  const idle = window.requestIdleCallback || ((run) => setTimeout(() => run({ timeRemaining: () => 8 }), 30));
  const rest = (deadline) => {
    for (const formula of pending) {
      if (deadline.timeRemaining() < 4) break;
      near.unobserve(formula);
      typeset(formula);
    }
    if (pending.size > 0) idle(rest, { timeout: 500 });
  };
  idle(rest, { timeout: 500 }); // typeset even while the reader keeps scrolling
});
