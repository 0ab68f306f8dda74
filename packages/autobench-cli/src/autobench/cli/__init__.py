"""The autobench command line."""


def main() -> None:
    raise SystemExit("autobench: the command line is not built yet")
