"""`toadstool db check|salvage`: the health of a server's database file, and a copy of every table it still
holds, read-only (the file itself is never written). Loaded by toadstool/cli.py only when `db` is asked for.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from toadstool.server import repair
from toadstool.server.store import default_db_path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(
        dest="action", required=True, metavar="action", help="check: is the file healthy; salvage: copy it"
    )
    check = actions.add_parser("check", help="say whether the database is healthy and what could be restored")
    salvage = actions.add_parser("salvage", help="copy every readable table into a new database file OUT")
    salvage.add_argument("out", metavar="OUT", help="the new database file (must not exist yet)")
    for action in (check, salvage):
        action.add_argument(
            "--db", help="the database file (default: ~/.local/state/toadstool/toadstool.db); it is only read"
        )


def run(args: argparse.Namespace) -> int:
    path = Path(args.db) if args.db else default_db_path()
    if not path.is_file():
        print(f"toadstool: there is no database file at {path}", file=sys.stderr)
        return 2
    if not repair.is_toadstool_file(path):
        print(f"toadstool: {path} is not a Toadstool database (its header says otherwise)", file=sys.stderr)
        return 2
    if args.action == "check":
        health = repair.check(path)
        print(health.summary())
        return 0 if health.ok else 1
    try:
        health = repair.salvage(path, Path(args.out))
    except FileExistsError as error:
        print(f"toadstool: {error}", file=sys.stderr)
        return 2
    print(health.summary())
    print(f"{len(health.readable)} tables copied into {args.out}; serve it with `toadstool serve --db {args.out}`")
    return 0
