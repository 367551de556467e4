"""The words of the site and the command line in each language; installed as `tutorial_i18n`, which holds the
Chinese of the exercises and checks (cli.zh.yml, read by tutorial_tools.language)."""
