"""The body signals on every real people photo and clip: a per-file table and totals.

    .venv/bin/python scripts/eval_real_signals.py                      # table (cached landmarks)
    .venv/bin/python scripts/eval_real_signals.py --fresh              # extract landmarks again
    .venv/bin/python scripts/eval_real_signals.py --json out.json      # the report as JSON
    .venv/bin/python scripts/eval_real_signals.py --without-hands      # as if Hands found no hand
    .venv/bin/python scripts/eval_real_signals.py --before tests/fixtures/people/real_signals_before.json

See vision/signals/real_eval.py for what each file should show and how it is scored.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.signals.real_eval import CACHE, evaluate, markdown_table  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", help="only these files (default: every real people file)")
    ap.add_argument("--fresh", action="store_true", help="extract landmarks from the media again")
    ap.add_argument("--no-cache", action="store_true", help="neither read nor write the landmark cache")
    ap.add_argument("--without-hands", action="store_true", help="as if MediaPipe Hands found no hand")
    ap.add_argument("--json", type=Path, help="write the report here")
    ap.add_argument("--before", type=Path, help="an earlier report (JSON) to show beside this one")
    args = ap.parse_args(argv)
    report = evaluate(
        args.paths or None,
        cache_dir=None if args.no_cache else CACHE,
        fresh=args.fresh,
        without_hands=args.without_hands,
    )
    try:
        before = json.loads(args.before.read_text()) if args.before else None
    except (OSError, ValueError) as exc:
        print(f"cannot read the earlier report {args.before}: {exc}", file=sys.stderr)
        return 2
    print(markdown_table(report, before))
    if report["absent"]:
        print("\nnot found (not scored): " + ", ".join(report["absent"]))
    if report["unlabelled"]:
        print("\nno expectation known (not scored): " + ", ".join(report["unlabelled"]))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
