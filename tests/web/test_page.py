"""The page without a server (tools/web.sh's folder) in headless Chromium, driven by selenium.

Run by tests/web.rs (`cargo test --test web`), which builds the folder and passes it as
VIER_WEB_DIR and the binary under test as VIER_BIN (for `vier solve --all`, the reference of the
analysis). The folder is served by `python3 -m http.server`: no vier process runs. Screenshots
of a 7x6 and a 12x4 game go to VIER_WEB_SCREENSHOTS (a folder) as web-7x6.png and web-12x4.png.
Every wait polls the page until a condition holds or a generous limit passes.
"""

import os
import shutil
import subprocess
import sys
import time
import unittest
from urllib.parse import urlsplit

FOLDER = os.environ.get("VIER_WEB_DIR", "")
VIER = os.environ.get("VIER_BIN", "")
SHOTS = os.environ.get("VIER_WEB_SCREENSHOTS", "")

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
except ImportError:
    sys.exit("selenium is missing: `python3 -m pip install selenium` (tools/test.sh installs it)")

# 20 positions of 9 sizes, as tests/web.rs checks them in node: openings the 7x6 book answers,
# a 7x6 middle game, small boards, wide boards written with letters, boards past 64 bits
ANALYSED = [
    ("7x6", "4453"),
    ("7x6", "32164"),
    ("7x6", "444433256"),
    ("7x6", "2252576253462244111563365343671351441"),
    ("7x6", "7422341735647741166133573473242566"),
    ("4x4", "21"),
    ("5x4", "3"),
    ("6x4", "25131444"),
    ("6x5", "2513144464"),
    ("5x5", "25131444421"),
    ("8x4", "325288874241"),
    ("10x4", "cjbebhhhgdbhagiaje"),
    ("12x4", "cjbebhhhkgdbiaghkaiedl"),
    ("6x6", "25131444642151"),
    ("8x7", "325288874241854688175447231118"),
    ("8x8", "325288874241854688175447231118157258"),
    ("9x7", "3252888742918819552611191748175598344"),
    ("5x13", "251314444214245524422321151424515254422"),
    ("7x9", "2577713147446472141545716432513111726"),
    ("11x5", "cjbebhhhkgdbiaghjahedbfaaabjj"),
]


def wait_for(what, cond, limit=60.0):
    """Polls `cond` until it returns something true; fails with `what` after `limit` seconds."""
    end = time.monotonic() + limit
    while True:
        v = cond()
        if v:
            return v
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


class StaticServer:
    """`python3 -m http.server` serving the folder on a free port of 127.0.0.1."""

    def __init__(self, folder):
        self.proc = subprocess.Popen(
            [sys.executable, "-u", "-m", "http.server", "0", "--bind", "127.0.0.1",
             "--directory", folder],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        line = self.proc.stdout.readline()  # "Serving HTTP on 127.0.0.1 port N (http://...) ..."
        if "port" not in line:
            self.proc.kill()
            raise RuntimeError(f"http.server printed no port: {line!r}")
        self.url = f"http://127.0.0.1:{line.split('port')[1].split()[0]}/"

    def stop(self):
        self.proc.terminate()
        self.proc.wait(10)
        self.proc.stdout.close()


def new_driver():
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if not browser or not driver:
        sys.exit(
            "Chromium or chromedriver is missing: `apt-get install chromium chromium-driver` "
            "(tools/test.sh installs them)"
        )
    opts = webdriver.ChromeOptions()
    opts.binary_location = browser
    for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900"):
        opts.add_argument(a)
    return webdriver.Chrome(options=opts, service=Service(executable_path=driver))


def solve_all(size, moves):
    """`vier solve --all`'s value of every column ("-": full)."""
    out = subprocess.run(
        [VIER, "solve", "--all", "--size", size], input=(moves or "-") + "\n",
        capture_output=True, text=True, check=True,
    ).stdout.split()
    width = int(size.split("x")[0])
    return out[1:1 + width]


class PageTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not FOLDER or not os.path.exists(os.path.join(FOLDER, "index.html")):
            sys.exit(f"VIER_WEB_DIR must name the folder tools/web.sh built (got '{FOLDER}')")
        if not VIER or not os.path.exists(VIER):
            sys.exit(f"VIER_BIN must name the vier binary (got '{VIER}')")
        cls.server = StaticServer(FOLDER)
        cls.driver = new_driver()

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()
        cls.server.stop()

    def setUp(self):
        # a fresh tab: its own game, engine and worker
        self.driver.switch_to.new_window("tab")
        self.d = self.driver
        self.d.get(self.server.url)
        wait_for("the board", lambda: self.d.find_elements(By.CSS_SELECTOR, "[data-cell]"))
        wait_for("the engine's worker", lambda: self.state() and self.state()["engine"]["state"] == "ready")

    def tearDown(self):
        self.driver.close()
        self.driver.switch_to.window(self.driver.window_handles[0])

    # the page, as tests/gui/test_gui.py sees it
    def state(self):
        return self.d.execute_script("return window.vierGame")

    def click(self, col):
        self.d.find_element(By.CSS_SELECTOR, f'[data-column="{col}"]').click()

    def choose(self, select_id, value):
        Select(self.d.find_element(By.ID, select_id)).select_by_value(value)

    def settle(self):
        """Waits until it is a person's turn or the game is over."""
        def idle():
            s = self.state()
            return s if s["status"] != "playing" or s["engine_side"] != s["to_move"] else None
        return wait_for("the engine's move", idle)

    def setting(self, select_id, value, field, shown):
        self.choose(select_id, value)
        wait_for(f"{field} {value}", lambda: self.state()[field] == shown)

    def play_by_clicks(self, size, order=None, first=None):
        """A game on `size` against the engine, the person clicking until it is over."""
        width, height = map(int, size.split("x"))
        self.setting("movetime", "100", "movetime", 100)
        self.choose("size", size)
        wait_for(f"the {size} board", lambda: len(
            self.d.find_elements(By.CSS_SELECTOR, "[data-cell]")) == width * height)
        clicks = 0
        while True:
            s = self.settle()
            if s["status"] != "playing":
                break
            if first and not s["moves"]:
                col = first
            elif order:
                col = next(c for c in order if c in s["legal"])
            else:
                col = s["legal"][len(s["moves"]) % len(s["legal"])]
            before = len(s["moves"])
            self.click(col)
            wait_for("the click's disc", lambda: len(self.state()["moves"]) > before)
            clicks += 1
        self.assertIn(s["status"], ("x-wins", "o-wins", "draw"))
        self.assertGreater(clicks, 1)
        discs = sum(1 for el in self.d.find_elements(By.CSS_SELECTOR, "[data-cell]")
                    if el.get_attribute("data-disc"))
        self.assertEqual(discs, len(s["moves"]))
        self.assertEqual(s["engine"]["message"], "")
        return s

    def screenshot(self, name):
        if not SHOTS:
            return
        wait_for("the animations", lambda: self.d.execute_script(
            "return document.getAnimations().length === 0"))
        ActionChains(self.d).move_to_element(self.d.find_element(By.TAG_NAME, "h1")).perform()
        os.makedirs(SHOTS, exist_ok=True)
        self.assertTrue(self.d.save_screenshot(os.path.join(SHOTS, name)), name)

    def test_7x6_game_clicked_to_the_end_the_engine_first_wins(self):
        self.setting("side", "x", "engine_side", "x")
        self.d.find_element(By.ID, "new").click()
        s = self.play_by_clicks("7x6", order=(3, 5, 4, 2, 6, 1, 7))
        self.assertEqual(s["status"], "x-wins")
        self.assertEqual(len(self.d.find_elements(By.CSS_SELECTOR, ".cell.win")), 4)
        self.screenshot("web-7x6.png")

    def test_12x4_game_reaches_the_columns_past_9(self):
        s = self.play_by_clicks("12x4", first=12)
        self.assertRegex(s["moves"], "^l[a-l]+$")
        labels = [el.text for el in self.d.find_elements(By.CSS_SELECTOR, ".num")]
        self.assertEqual(labels, list("abcdefghijkl"))
        self.screenshot("web-12x4.png")

    def test_8x8_game(self):
        s = self.play_by_clicks("8x8")
        self.assertRegex(s["moves"], "^[1-8]+$")

    def test_analysis_of_20_positions_equals_vier_solve_all(self):
        self.setting("side", "none", "engine_side", "none")
        for size, moves in ANALYSED:
            with self.subTest(size=size, moves=moves):
                if self.state()["size"] != size:
                    self.choose("size", size)
                    wait_for(f"the {size} board", lambda: self.state()["size"] == size)
                box = self.d.find_element(By.ID, "paste")
                box.clear()
                box.send_keys(moves)
                self.d.find_element(By.CSS_SELECTOR, "#paste-form button").click()
                wait_for("the position", lambda: self.state()["moves"] == moves)
                self.d.find_element(By.ID, "analyse").click()
                row = self.d.find_element(By.ID, "analysis")
                wait_for("the analysis", lambda: row.get_attribute("data-complete") == "true"
                         and row.get_attribute("data-moves") == moves, limit=90)
                width = self.state()["width"]
                shown = [
                    self.d.find_element(By.CSS_SELECTOR, f'[data-analysis-column="{c}"]')
                    .get_attribute("data-score") or "-"
                    for c in range(1, width + 1)
                ]
                self.assertEqual(shown, solve_all(size, moves))

    def test_a_level_changed_mid_game_plays_on(self):
        self.setting("movetime", "100", "movetime", 100)
        for c in (4, 4):
            s = self.settle()
            col = c if c in s["legal"] else s["legal"][0]
            self.click(col)
            wait_for("the engine's reply", lambda: len(self.state()["moves"]) == len(s["moves"]) + 2)
        self.assertEqual(self.state()["level"], len(self.state()["levels"]))
        self.setting("level", "1", "level", 1)
        shown = self.d.find_element(By.ID, "level-shown")
        wait_for("the level beside the board", lambda: "level 1" in shown.text)
        self.assertEqual(len(self.state()["moves"]), 4, "the game goes on")
        for c in (3, 5):
            s = self.settle()
            self.click(c if c in s["legal"] else s["legal"][0])
            wait_for("level 1's reply", lambda: len(self.state()["moves"]) == len(s["moves"]) + 2)
        self.assertEqual(self.state()["level"], 1)
        self.assertEqual(self.state()["engine"]["message"], "")

    def test_live_depth_then_undo_stops_the_search_and_redo(self):
        self.setting("movetime", "10000", "movetime", 10000)
        self.setting("size", "8x8", "size", "8x8")
        # a position out of any book: the engine searches depth after depth
        self.click(1)
        thinking = self.d.find_element(By.ID, "thinking")
        wait_for("a live depth and score", lambda: "depth" in thinking.text, limit=20)
        s = self.state()
        self.assertEqual(s["engine"]["state"], "thinking")
        self.assertTrue(s["thinking"]["score"])
        # undo during the search: the search stops at once (its worker ends) and the board empties
        self.d.find_element(By.ID, "undo").click()
        wait_for("the undo", lambda: self.state()["moves"] == "" and self.state()["engine"]["state"] == "ready")
        self.assertEqual(self.d.execute_script("return window.vierEngine.restarts"), 1)
        self.assertTrue(self.state()["can_redo"])
        # the fresh worker plays the next move
        self.setting("movetime", "100", "movetime", 100)
        self.d.find_element(By.ID, "redo").click()
        wait_for("the engine's reply after redo", lambda: len(self.state()["moves"]) == 2, limit=20)
        self.assertEqual(self.state()["moves"][0], "1")

    def test_no_request_leaves_the_folder(self):
        self.click(4)
        wait_for("the engine's reply", lambda: len(self.state()["moves"]) == 2)
        page = self.d.execute_script(
            "return performance.getEntriesByType('resource').map(e => e.name)")
        worker = self.d.execute_script("return window.vierWorkerFetched")
        self.assertIsNotNone(worker, "the worker lists what it fetched")
        urls = [self.d.current_url] + page + worker
        base = urlsplit(self.server.url)
        for url in urls:
            u = urlsplit(url)
            self.assertEqual((u.scheme, u.netloc), (base.scheme, base.netloc), url)
            self.assertTrue(u.path.startswith(base.path), url)
        names = {urlsplit(u).path.rsplit("/", 1)[-1] for u in urls}
        for f in ("backend.js", "app.js", "style.css", "engine.js", "wasm.js", "worker.js",
                  "vier.wasm.gz", "7x6.book.gz"):
            self.assertIn(f, names)
        self.assertNotIn("server.js", names)


if __name__ == "__main__":
    unittest.main(verbosity=2)
