// Typeset the math that pymdownx.arithmatex leaves in the page, with the KaTeX copy this site serves itself.
document$.subscribe(({ body }) => {
  renderMathInElement(body, {
    delimiters: [
      { left: "$$", right: "$$", display: true },
      { left: "$", right: "$", display: false },
      { left: "\\(", right: "\\)", display: false },
      { left: "\\[", right: "\\]", display: true },
    ],
    throwOnError: true,
  });
  // A wide display formula scrolls sideways on a phone: make it reachable with the keyboard too.
  for (const formula of body.querySelectorAll("div.arithmatex")) {
    formula.setAttribute("tabindex", "0");
  }
});
