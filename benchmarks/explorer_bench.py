"""How fast the attention explorer writes, in a phone-like browser: `python benchmarks/explorer_bench.py`.

Serves a built site (`site/`, made by `mkdocs build`) on 127.0.0.1, opens chapter 11's page in headless
Chromium with its CPU slowed down four times (Chrome's own throttling, as Lighthouse's mobile profile does),
and times the explorer's JavaScript forward pass at several lengths up to the model's context of 64
characters: over the whole text, and with the prefix cache the page writes with (only the new character's
rows computed). The machine's speed is
measured in the same session by benchmarks/yardstick.py when it is there, and every time is also printed as a
ratio to it. It prints figures; it checks nothing.
"""

import argparse
import functools
import http.server
import importlib.util
import shutil
import statistics
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FORWARD = """async ([length, repeats, cached]) => {
    const {loadModel, forward} = window.attentionExplorer;
    const model = await loadModel('../explorer/language_model.json');
    const ids = Array.from({length}, (_, t) => (t * 7) % model.chars.length);
    forward(model, ids);  // warm-up: the JIT compiles the loops
    const times = [];
    for (let k = 0; k < repeats; k++) {
        const cache = {};
        if (cached) forward(model, ids.slice(0, -1), {}, cache);  // the text before the new character
        const start = performance.now();
        forward(model, ids, {}, cached ? cache : null);
        times.push(performance.now() - start);
    }
    return times;
}"""


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def yardstick_seconds() -> float | None:
    path = ROOT / "benchmarks" / "yardstick.py"
    if not path.exists():
        return None
    spec = importlib.util.spec_from_file_location("yardstick", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.yardstick()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--site", type=Path, default=ROOT / "site", help="a built site (mkdocs build)")
    parser.add_argument("--throttling", type=float, default=4.0, help="CPU slow-down factor (1: none)")
    parser.add_argument("--repeats", type=int, default=10)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(args.site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    browser_path = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=browser_path, args=["--headless", "--no-sandbox"])
        page = browser.new_page()
        page.goto(f"http://127.0.0.1:{server.server_port}/language_model/")
        session = page.context.new_cdp_session(page)
        session.send("Emulation.setCPUThrottlingRate", {"rate": args.throttling})
        results = {
            (length, cached): page.evaluate(FORWARD, [length, args.repeats, cached])
            for cached in (False, True)
            for length in (8, 16, 32, 64)
        }
        browser.close()
    server.shutdown()
    seconds = yardstick_seconds()
    print(f"explorer forward pass, headless Chromium, CPU throttled {args.throttling:g}x, {args.repeats} runs")
    for (length, cached), times in results.items():
        median = statistics.median(times)
        ratio = f", {median / 1000 / seconds:.4f} x the yardstick" if seconds else ""
        how = "with the prefix cache, as the page writes" if cached else "the whole text again"
        print(f"  {length:>2} characters so far, {how}: median {median:.1f} ms per new character{ratio}")
    if seconds:
        print(f"yardstick (benchmarks/yardstick.py) in the same session: {seconds:.2f} s")


if __name__ == "__main__":
    main()
