"""The page without a server (tools/web.sh's folder) in headless Chromium, driven by selenium.

Run by tests/web.rs (`cargo test --test web`), which builds the folder and passes it as
VIER_WEB_DIR and the binary under test as VIER_BIN (for `vier solve --all`, the reference of the
analysis and of the review). The folder is served by `python3 -m http.server`: no vier process
runs. Screenshots go to VIER_WEB_SCREENSHOTS (a folder): web-7x6.png and web-7x6-dark.png (a
game on a desktop), web-phone.png and web-phone-dark.png (the analysis at 390x844),
web-review.png (a review) and web-12x4.png. Every wait polls the page until a condition holds
or a generous limit passes.
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
    from selenium.webdriver.common.keys import Keys
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


# A game with one planted blunder: ✕'s second disc (column 1) gives away the win ✕ had; ◯ then
# wins while ✕ loses sooner than it had to (tests/gui/test_gui.py plays it too).
PLANTED = "44141434"
PLANTED_AT = 3


def review_marks(moves):
    """What the review must mark on each move of `moves`, from `vier solve --all` of each
    position: a move whose value has another sign than the best column's changed the outcome
    (blunder), one worth less lost ground (mistake)."""
    def sign(v):
        return (v > 0) - (v < 0)

    marks = []
    for i, c in enumerate(moves):
        values = solve_all("7x6", moves[:i])
        best = max(int(v) for v in values if v != "-")
        played = int(values[int(c) - 1])
        marks.append("blunder" if sign(best) != sign(played) else
                     "mistake" if played < best else "good")
    return marks


def label_overlaps(driver, selector):
    """The labels (`selector`) whose text overlaps another's or spills out of its own box."""
    return driver.execute_script("""
        const boxes = [...document.querySelectorAll(arguments[0])].map((el) => {
          const r = document.createRange();
          r.selectNodeContents(el);
          const t = r.getBoundingClientRect();
          const b = el.getBoundingClientRect();
          return {text: el.textContent, t, b};
        }).filter((x) => x.t.width > 0);
        const bad = [];
        boxes.forEach((x, i) => {
          if (x.t.left < x.b.left - 0.5 || x.t.right > x.b.right + 0.5) bad.push(`${x.text} spills`);
          boxes.slice(i + 1).forEach((y) => {
            const apart = x.t.right <= y.t.left || y.t.right <= x.t.left ||
              x.t.bottom <= y.t.top || y.t.bottom <= x.t.top;
            if (!apart) bad.push(`${x.text} / ${y.text}`);
          });
        });
        return bad;""", selector)


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
        self.d.execute_script("window.scrollTo(0, 0)")
        os.makedirs(SHOTS, exist_ok=True)
        self.assertTrue(self.d.save_screenshot(os.path.join(SHOTS, name)), name)

    def dark(self, on):
        self.d.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [
            {"name": "prefers-color-scheme", "value": "dark" if on else "light"}]})

    def ready(self):
        wait_for("the engine's worker", lambda: (s := self.state()) and s["engine"]["state"] != "starting")

    def paste(self, moves):
        box = self.d.find_element(By.ID, "paste")
        box.clear()
        box.send_keys(moves)
        self.d.find_element(By.CSS_SELECTOR, "#paste-form button").click()
        wait_for("the position", lambda: self.state()["moves"] == moves)

    def analyse_now(self, moves):
        self.d.find_element(By.ID, "analyse").click()
        row = self.d.find_element(By.ID, "analysis")
        wait_for("the analysis", lambda: row.get_attribute("data-complete") == "true"
                 and row.get_attribute("data-moves") == moves, limit=90)

    def hash(self):
        return self.d.execute_script("return decodeURIComponent(location.hash)")

    def test_7x6_game_clicked_to_the_end_the_engine_first_wins(self):
        self.setting("side", "x", "engine_side", "x")
        self.d.find_element(By.ID, "new").click()
        s = self.play_by_clicks("7x6", order=(3, 5, 4, 2, 6, 1, 7))
        self.assertEqual(s["status"], "x-wins")
        self.assertEqual(len(self.d.find_elements(By.CSS_SELECTOR, ".cell.win")), 4)
        # the game over, its review: the person's moves marked against the engine's proofs
        wait_for("the review", lambda: self.state()["review"]["complete"], limit=120)
        self.screenshot("web-7x6.png")
        try:
            self.dark(True)
            self.screenshot("web-7x6-dark.png")
        finally:
            self.dark(False)

    def test_12x4_game_reaches_the_columns_past_9(self):
        s = self.play_by_clicks("12x4", first=12)
        self.assertRegex(s["moves"], "^l[a-l]+$")
        labels = [el.text for el in self.d.find_elements(By.CSS_SELECTOR, ".num")]
        self.assertEqual(labels, list("abcdefghijkl"))
        self.screenshot("web-12x4.png")

    def test_8x8_game(self):
        s = self.play_by_clicks("8x8")
        self.assertRegex(s["moves"], "^[1-8]+$")

    def test_analysis_of_20_positions_equals_vier_solve_all_in_every_worker(self):
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
                self.assertTrue(self.d.find_element(By.ID, "summary").text.endswith("."))
        # a worker a core searched the columns (this machine: navigator.hardwareConcurrency)
        cores = self.d.execute_script("return navigator.hardwareConcurrency")
        workers = self.d.execute_script("return window.vierLanes.length")
        self.assertEqual(workers, min(cores, 8) if cores > 1 else 1)

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
        # its worker ended (a page not cross-origin isolated) or reported the search's end
        wait_for("the search's end", lambda: self.d.execute_script(
            "return window.vierEngine.restarts + window.vierEngine.stops.length") == 1)
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

    def test_a_link_restores_its_position_and_the_address_follows_the_moves(self):
        # the same tab, another position in the address: that position, the person to move
        self.d.get(self.server.url + "#7x6/445")
        wait_for("the link's position", lambda: self.state()["moves"] == "445")
        self.assertEqual(self.state()["engine_side"], "x", "the engine takes the side not to move")
        self.assertEqual(self.hash(), "#7x6/445")
        self.click(3)
        wait_for("the engine's reply", lambda: len(self.state()["moves"]) == 5)
        self.assertEqual(self.hash(), "#7x6/" + self.state()["moves"])
        self.assertIn(self.state()["moves"], self.d.find_element(By.ID, "link").get_attribute("value"))
        # a fresh tab with a link to another board, and Pons' way of writing one
        for address, size, moves in (("#8x8/1818", "8x8", "1818"), ("?pos=4453", "7x6", "4453"),
                                     ("#12x4/abc", "12x4", "abc")):
            self.d.switch_to.new_window("tab")
            self.d.get(self.server.url + address)
            wait_for(address, lambda: (s := self.state()) and s["size"] == size and s["moves"] == moves)
            self.assertEqual(self.hash(), f"#{size}/{moves}")
            self.d.close()
            self.d.switch_to.window(self.d.window_handles[-1])

    def test_any_address_shows_the_board_or_says_why_it_names_no_position(self):
        # issue 74: a malformed `%` in the address threw in app.js, the page stuck on "Starting…"
        for address, moves in (("#%", None), ("#7x6/%", None), ("#%E0%A4%A", None),
                               ("#7x6/4444444", None), ("#7x6%2F44", "44")):
            self.d.switch_to.new_window("tab")
            self.d.get(self.server.url + address)
            wait_for(f"the board of {address}", lambda: (s := self.state())
                     and len(self.d.find_elements(By.CSS_SELECTOR, "[data-cell]"))
                     == s["width"] * s["height"])
            message = self.d.find_element(By.ID, "message")
            if moves is None:
                wait_for(f"why {address} names no position",
                         lambda: "names no position" in message.text)
                self.assertEqual(self.state()["moves"], "", address)
                self.assertEqual(self.d.execute_script("return location.hash"), "#7x6", address)
            else:
                wait_for(address, lambda: self.state()["moves"] == moves)
            self.d.close()
            self.d.switch_to.window(self.d.window_handles[-1])

    def test_a_reload_keeps_the_game_its_settings_and_the_turn(self):
        self.setting("movetime", "300", "movetime", 300)
        self.setting("level", "3", "level", 3)
        for c in (4, 3):
            n = len(self.settle()["moves"])
            self.click(c)
            wait_for("the engine's reply", lambda: len(self.state()["moves"]) == n + 2)
        before = self.state()
        # one move back: the engine's turn, but it waits while the person steps through
        self.d.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_LEFT)
        wait_for("a move back", lambda: self.state()["ply"] == 3)
        self.d.refresh()
        self.ready()
        s = self.state()
        self.assertEqual((s["line"], s["ply"], s["to_move"]), (before["line"], 3, "o"))
        self.assertEqual((s["movetime"], s["level"], s["engine_side"]), (300, 3, "o"))
        self.assertNotEqual(s["engine"]["state"], "thinking")
        self.assertEqual(self.hash(), "#7x6/" + before["line"][:3])

    def test_the_service_worker_controls_the_page_and_a_reload_without_the_server_plays(self):
        # a server of its own: stopped below (another port is another origin, another worker)
        server = StaticServer(FOLDER)
        try:
            self.d.get(server.url)
            self.ready()
            wait_for("the service worker", lambda: self.d.execute_script(
                "return !!navigator.serviceWorker.controller"), limit=60)
            with open(os.path.join(FOLDER, "sw.js")) as f:
                build = f.read().split('const BUILD = "', 1)[1].split('"', 1)[0]
            caches = self.d.execute_async_script(
                "caches.keys().then(arguments[arguments.length - 1])")
            self.assertEqual(caches, [f"vier-{build}"])
            errors = self.d.execute_cdp_cmd("Page.getInstallabilityErrors", {})
            self.assertEqual(errors.get("installabilityErrors"), [], "the page can be installed")
        finally:
            server.stop()
        # no server: the reload, the engine's move and an analysis come from the cache
        self.d.refresh()
        self.ready()
        self.assertEqual(self.state()["engine"]["state"], "ready")
        self.click(4)
        wait_for("the engine's reply", lambda: len(self.state()["moves"]) == 2, limit=30)
        self.analyse_now(self.state()["moves"])
        self.assertEqual(len(self.state()["analysis"]["columns"]), 7)

    def test_a_page_opened_as_a_file_says_it_must_be_served_and_how(self):
        self.d.get("file://" + os.path.abspath(os.path.join(FOLDER, "index.html")))
        message = self.d.find_element(By.ID, "message")
        wait_for("the reason", lambda: "served" in message.text)
        self.assertIn("python3 -m http.server", message.text)

    def test_on_a_phone_no_two_labels_overlap_and_nothing_scrolls_sideways(self):
        self.setting("side", "none", "engine_side", "none")
        try:
            for width, height, size, moves in ((390, 844, "7x6", "4453"), (360, 640, "7x6", "4453"),
                                               (390, 844, "12x4", "cjbebhhhkgdbiaghkaiedl"),
                                               (360, 640, "12x4", "cjbebhhhkgdbiaghkaiedl"),
                                               (390, 844, "5x13", "2513144442142455244"),
                                               (360, 640, "5x13", "2513144442142455244")):
                with self.subTest(width=width, height=height, size=size):
                    self.d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
                        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": True})
                    wait_for("the layout", lambda: self.d.execute_script(
                        "return window.innerWidth") == width)
                    if self.state()["size"] != size:
                        self.choose("size", size)
                        wait_for(f"the {size} board", lambda: self.state()["size"] == size)
                    if self.state()["moves"] != moves:
                        self.paste(moves)
                        self.analyse_now(moves)
                    self.d.execute_script("window.scrollTo(0, 0)")
                    wait_for("the animations", lambda: self.d.execute_script(
                        "return document.getAnimations().length === 0"))
                    self.assertEqual(label_overlaps(self.d, "#analysis .acell"), [])
                    self.assertEqual(label_overlaps(self.d, "#board .num"), [])
                    page_width, board_bottom, status_top = self.d.execute_script("""
                        return [document.documentElement.scrollWidth,
                                document.getElementById('board').getBoundingClientRect().bottom,
                                document.getElementById('status').getBoundingClientRect().top]""")
                    self.assertLessEqual(page_width, width, "nothing scrolls sideways")
                    self.assertLessEqual(board_bottom, height, "the board on the first screen")
                    self.assertGreaterEqual(status_top, 0)
                    # centred, and as large as the screen allows (issue 76: 5x13 was 191 px
                    # wide on 390x844, at the left)
                    left, right = self.d.execute_script(
                        "const r = document.getElementById('board').getBoundingClientRect();"
                        "return [r.left, r.right]")
                    self.assertLessEqual(abs((left + right) / 2 - width / 2), 2, "centred")
                    if height >= 800:
                        self.assertGreaterEqual(right - left, 0.6 * width, "as large as it can")
                    if (width, size) == (390, "7x6"):
                        self.screenshot("web-phone.png")
                        try:
                            self.dark(True)
                            self.screenshot("web-phone-dark.png")
                        finally:
                            self.dark(False)
        finally:
            self.d.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})

    def test_the_end_of_a_game_moves_nothing_and_says_where_the_four_is(self):
        # issue 76: the status at the end of a game widened the board's column, and the panel
        # beside it jumped from x=535 to x=777
        self.setting("side", "none", "engine_side", "none")
        body = self.d.find_element(By.TAG_NAME, "body")
        body.send_keys("414141")
        wait_for("six moves", lambda: self.state()["moves"] == "414141")
        where = "return [...document.querySelectorAll('#board, aside.side')].map(" \
                "(e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.width]; })"
        before = self.d.execute_script(where)
        body.send_keys("4")
        wait_for("the four", lambda: self.state()["status"] == "x-wins")
        self.assertEqual(self.d.execute_script(where), before)
        status = self.d.find_element(By.ID, "status").text
        self.assertIn("four up column 4", status)
        self.assertEqual(len(self.d.find_elements(By.CSS_SELECTOR, ".cell.win")), 4)

    def test_a_desktop_gives_the_board_and_the_panel_its_whole_width(self):
        # issue 76: a desktop left a third of its width unused. The board beside the panel, the
        # two across the window; beside a tall board the record and the settings side by side.
        self.setting("side", "none", "engine_side", "none")
        try:
            self.d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
                "width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False})
            wait_for("the layout", lambda: self.d.execute_script(
                "return window.innerWidth") == 1280)
            for size in ("7x6", "12x4", "5x13"):
                with self.subTest(size=size):
                    if self.state()["size"] != size:
                        self.setting("size", size, "size", size)
                    board, side, record, controls = self.d.execute_script(
                        "return ['#board', 'aside.side', 'section.record', 'section.controls']"
                        ".map((s) => { const r = document.querySelector(s)"
                        ".getBoundingClientRect(); return [r.left, r.right, r.top]; })")
                    width = self.d.execute_script("return document.documentElement.clientWidth")
                    self.assertLess(board[1], side[0], "the panel beside the board")
                    self.assertGreaterEqual(side[1], width - 20, "the width used to the margin")
                    if size == "5x13":
                        self.assertLess(record[1], controls[0], "the record beside the settings")
                        self.assertAlmostEqual(record[2], controls[2], delta=1)
        finally:
            self.d.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})

    def test_the_move_list_steps_back_and_forward(self):
        self.setting("side", "none", "engine_side", "none")
        body = self.d.find_element(By.TAG_NAME, "body")
        body.send_keys("4453")
        wait_for("four moves", lambda: self.state()["moves"] == "4453")
        for key, ply in ((Keys.ARROW_LEFT, 3), (Keys.ARROW_LEFT, 2), (Keys.ARROW_RIGHT, 3),
                         (Keys.HOME, 0), (Keys.END, 4), (Keys.ARROW_RIGHT, 4)):
            body.send_keys(key)
            wait_for(f"move {ply}", lambda: self.state()["ply"] == ply)
            s = self.state()
            self.assertEqual((s["moves"], s["line"]), ("4453"[:ply], "4453"))
            discs = sum(1 for el in self.d.find_elements(By.CSS_SELECTOR, "[data-cell]")
                        if el.get_attribute("data-disc"))
            self.assertEqual(discs, ply)
        self.d.find_element(By.CSS_SELECTOR, '#movelist button[data-ply="1"]').click()
        wait_for("move 1", lambda: self.state()["ply"] == 1)
        self.assertEqual(self.hash(), "#7x6/4")
        # against the engine, it waits in a position of the record until the person plays on
        self.setting("side", "o", "engine_side", "o")
        self.assertEqual(self.state()["to_move"], "o")
        self.assertEqual(self.state()["line"], "4453")
        self.assertNotEqual(self.state()["engine"]["state"], "thinking")
        resume = self.d.find_element(By.ID, "resume")
        self.assertTrue(resume.is_displayed())
        self.setting("movetime", "100", "movetime", 100)
        resume.click()
        wait_for("the engine's move from there", lambda: len(self.state()["line"]) == 2
                 and self.state()["ply"] == 2)

    def test_a_finished_games_review_marks_the_planted_blunder(self):
        self.setting("side", "none", "engine_side", "none")
        self.paste(PLANTED)
        self.assertEqual(self.state()["status"], "o-wins")
        # the game is over: its review starts by itself
        review = self.d.find_element(By.ID, "review")
        wait_for("the review", lambda: review.get_attribute("data-complete") == "true", limit=120)
        r = self.state()["review"]
        marks = [n["mark"] for n in r["notes"]]
        self.assertEqual(marks[PLANTED_AT - 1], "blunder")
        self.assertEqual(marks, review_marks(PLANTED))
        self.assertEqual(r["proven"], r["positions"])
        self.assertTrue(all(p is not None for p in r["points"]), "every point of the graph")
        item = self.d.find_element(By.CSS_SELECTOR, f'#movelist button[data-ply="{PLANTED_AT}"]')
        self.assertEqual(item.get_attribute("data-mark"), "blunder")
        self.assertTrue(item.text.endswith("??"), item.text)
        self.assertEqual(len(self.d.find_elements(By.CSS_SELECTOR, "#graph .point")), len(PLANTED) + 1)
        # the graph says what is up, what is down and how far the game went (issue 76: it had
        # no axes)
        axes = self.d.find_element(By.CSS_SELECTOR, "#review .graph-box").text
        for words in ("✕ wins", "draw", "◯ wins", "start", f"move {len(PLANTED)}"):
            self.assertIn(words, axes)
        item.click()
        note = self.d.find_element(By.ID, "review-note")
        wait_for("the blunder's note", lambda: "gave away the win" in note.text)
        self.screenshot("web-review.png")

    def test_an_unproven_column_is_never_outlined_as_best(self):
        # issue 76: the "?" of a column not proven yet was outlined as the best. Every change of
        # the values above the columns is looked at while a 12x4 analysis proves them one by one.
        self.setting("side", "none", "engine_side", "none")
        self.d.execute_script("""
            const row = document.getElementById('analysis');
            window.vierBest = {estimates: 0, proven: 0, unproven: []};
            window.vierBestWatch = new MutationObserver(() => {
              for (const el of row.querySelectorAll('.acell')) {
                if (el.classList.contains('estimate')) window.vierBest.estimates++;
                if (!el.classList.contains('best')) continue;
                if (el.dataset.score === undefined) window.vierBest.unproven.push(el.textContent);
                else window.vierBest.proven++;
              }
            });
            window.vierBestWatch.observe(row, {subtree: true, attributes: true, childList: true,
                                               characterData: true});""")
        self.setting("size", "12x4", "size", "12x4")
        moves = "cjbebhhhkgdbiag"
        self.paste(moves)
        self.analyse_now(moves)
        seen = self.d.execute_script("window.vierBestWatch.disconnect(); return window.vierBest")
        self.assertGreater(seen["estimates"], 0, "no column was shown unproven")
        self.assertGreater(seen["proven"], 0, "no proven column was outlined")
        self.assertEqual(seen["unproven"], [], "unproven columns outlined as best")

    def test_two_games_at_level_1_differ(self):
        self.setting("movetime", "100", "movetime", 100)
        self.setting("level", "1", "level", 1)
        self.setting("side", "x", "engine_side", "x")
        games = []
        for _ in range(2):
            self.d.find_element(By.ID, "new").click()
            wait_for("the new game", lambda: len(self.state()["line"]) <= 1)
            wait_for("the engine's first move", lambda: len(self.state()["moves"]) >= 1)
            while len(self.state()["moves"]) < 14:
                s = self.settle()
                if s["status"] != "playing":
                    break
                n = len(s["moves"])
                self.click(next(c for c in (4, 3, 5, 2, 6, 1, 7) if c in s["legal"]))
                wait_for("the reply", lambda: len(self.state()["moves"]) >= n + 2
                         or self.state()["status"] != "playing")
            games.append(self.settle()["moves"])
        self.assertNotEqual(games[0], games[1], "level 1 played the same game twice")

    def stops_leave_one_worker_a_lane(self, stops):
        """`stops` searches on 8x8 stopped by undo, with every worker's Web Lock (held while it
        lives) sampled all the while: the most workers of one lane alive at once, by lane."""
        self.d.execute_script("""
            window.vierPeak = {};
            window.vierSampler = setInterval(async () => {
              const held = (await navigator.locks.query()).held.map((l) => l.name)
                .filter((n) => n.startsWith('vier-worker'));
              const lanes = {};
              for (const n of held) {
                const lane = n.split(' ').slice(1, 4).join(' ');
                lanes[lane] = (lanes[lane] || 0) + 1;
              }
              for (const [lane, count] of Object.entries(lanes)) {
                window.vierPeak[lane] = Math.max(window.vierPeak[lane] || 0, count);
                if (count > 1) window.vierPeakSeen = held.join(' | ');
              }
            }, 2);""")
        self.setting("movetime", "10000", "movetime", 10000)
        if self.state()["size"] != "8x8":
            self.setting("size", "8x8", "size", "8x8")
        thinking = self.d.find_element(By.ID, "thinking")
        for _ in range(stops):
            self.click(1)
            wait_for("a search under way", lambda: "depth" in thinking.text, limit=30)
            self.d.find_element(By.ID, "undo").click()
            wait_for("the undo", lambda: self.state()["moves"] == ""
                     and self.state()["engine"]["state"] == "ready")
        workers = self.d.execute_script("return window.vierLanes.length")
        wait_for("one worker a lane", lambda: len([n for n in self.d.execute_script(
            "return navigator.locks.query().then((q) => q.held.map((l) => l.name))")
            if n.startswith("vier-worker")]) == workers)
        return self.d.execute_script("clearInterval(window.vierSampler); return window.vierPeak")

    def test_on_the_first_visit_a_size_change_never_holds_the_engines_move(self):
        # issue 76: before the service worker serves the page (not cross-origin isolated), the
        # analysis stopped by a size change was sent to the worker once it had been replaced,
        # and held the engine's first move on the new board for 31 s (an analysis's 30 s)
        server = StaticServer(FOLDER)
        try:
            self.d.get(server.url)
            self.ready()
            self.assertFalse(self.d.execute_script("return crossOriginIsolated"))
            self.setting("movetime", "300", "movetime", 300)
            self.d.find_element(By.ID, "always").click()
            wait_for("the analysis after every move", lambda: self.state()["analysis_always"])
            for size in ("12x4", "5x13"):
                self.choose("size", size)
                wait_for(f"the {size} board", lambda: self.state()["size"] == size)
                wait_for("the analysis under way",
                         lambda: self.state()["engine"]["state"] == "analysing")
                time.sleep(0.5)
                self.click(3)
                wait_for("the engine's reply", lambda: len(self.state()["moves"]) == 2, limit=60)
                wait_for("the analysis under way",
                         lambda: self.state()["engine"]["state"] == "analysing")
            ms = self.d.execute_script("return window.vierTimings")[-1]
            print(f"the first move after a size change on the first visit: {ms:.0f} ms at a "
                  f"thinking time of 300 ms", file=sys.stderr)
            self.assertLess(ms, 300 + 5000, "the engine's move waited for a stopped analysis")
        finally:
            server.stop()

    def test_after_a_stop_no_second_worker_is_alive(self):
        # a server of its own: the first visit is not yet the service worker's
        server = StaticServer(FOLDER)
        try:
            self.d.get(server.url)
            self.ready()
            # not cross-origin isolated: stop ends the worker, the next starts once it has ended
            self.assertFalse(self.d.execute_script("return crossOriginIsolated"))
            peak = self.stops_leave_one_worker_a_lane(3)
            self.assertEqual(set(peak.values()), {1}, self.d.execute_script(
                "return window.vierPeakSeen"))
            self.assertEqual(self.d.execute_script("return window.vierEngine.restarts"), 3)
            # isolated by the service worker's headers: the search stops, its worker stays
            wait_for("the service worker", lambda: self.d.execute_script(
                "return !!navigator.serviceWorker.controller"))
            self.d.refresh()
            self.ready()
            self.assertTrue(self.d.execute_script("return crossOriginIsolated"))
            lock = self.d.execute_script("return window.vierEngine.lock")
            peak = self.stops_leave_one_worker_a_lane(3)
            self.assertEqual(set(peak.values()), {1}, self.d.execute_script(
                "return window.vierPeakSeen"))
            engine = self.d.execute_script(
                "const e = window.vierEngine; return {restarts: e.restarts, stops: e.stops, lock: e.lock}")
            self.assertEqual(engine["restarts"], 0)
            self.assertEqual(engine["lock"], lock, "the same worker all along")
            # each stopped search's end, reported by the worker
            wait_for("the ends", lambda: len(self.d.execute_script(
                "return window.vierEngine.stops")) == 3)
            ends = [round(x["ms"]) for x in self.d.execute_script("return window.vierEngine.stops")]
            print(f"stopped searches answered {ends} ms after the stop", file=sys.stderr)
        finally:
            server.stop()

if __name__ == "__main__":
    unittest.main(verbosity=2)
