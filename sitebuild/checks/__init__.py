"""One module per chapter: the sentences of its page that state a measured result, as checks on the
values the chapter computed (`sitebuild.claims`). A chapter without a module here states no measured result."""
