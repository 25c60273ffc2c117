"""Browser tests of `vier gui`: headless Chromium driven by selenium, plus raw HTTP checks.

Run by tests/gui.rs (`cargo test`), which passes the binary as VIER_BIN. Every wait polls the
page until a condition holds or a generous limit passes; no assertion depends on timing.
"""

import http.client
import json
import os
import select
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
import unittest
import urllib.error
import urllib.request

VIER = os.environ.get("VIER_BIN", "")
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCREENSHOT = os.environ.get("VIER_GUI_SCREENSHOT", "")
TIMINGS = os.environ.get("VIER_GUI_TIMINGS", "")

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select, WebDriverWait
except ImportError:
    sys.exit("selenium is missing: tools/test.sh installs it into target/test-venv and runs the "
             "tests with that python3")


def chromium_paths():
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if not browser or not driver:
        sys.exit(
            "Chromium or chromedriver is missing: `apt-get install chromium chromium-driver` "
            "(tools/test.sh installs them)"
        )
    return browser, driver


class Server:
    """A `vier gui` process on a free port of 127.0.0.1."""

    def __init__(self, *extra):
        if not VIER or not os.path.exists(VIER):
            sys.exit(f"VIER_BIN must name the vier binary (got '{VIER}')")
        self.proc = subprocess.Popen(
            [VIER, "gui", "--no-open", "--port", "0", *extra],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        line = self.proc.stdout.readline()
        if "http://" not in line:
            self.proc.kill()
            raise RuntimeError(f"vier gui printed no address: {line!r}")
        self.url = line.split()[2]

    def alive(self):
        return self.proc.poll() is None

    def first_move(self, settings=None):
        """A new game with `settings`, column 4 played in it: its id and the move's status."""
        sid = self.request("POST", "/api/session")[1]["id"]
        if settings is not None:
            self.request("POST", f"/api/session/{sid}/settings", settings)
        return sid, self.request("POST", f"/api/session/{sid}/move", {"column": 4})[0]

    def stop(self):
        self.proc.stdout.close()
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def request(self, method, path, body=None, raw=None, ctype="application/json"):
        """(status, parsed JSON or text) of one request; 4xx and 5xx are answers too."""
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        req = urllib.request.Request(self.url.rstrip("/") + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", ctype)
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                status, text = r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            status, text = e.code, e.read().decode()
        except (urllib.error.URLError, ConnectionResetError, BrokenPipeError) as e:
            cause = getattr(e, "reason", e)
            if raw is None or not isinstance(cause, (BrokenPipeError, ConnectionResetError)):
                raise
            # The server may answer an oversized body and close before the upload ends; its
            # answer is still there to read after the client stops sending.
            status, text = self.send_and_read_answer(method, path, data, ctype)
        try:
            return status, json.loads(text)
        except ValueError:
            return status, text

    def send_and_read_answer(self, method, path, data, ctype):
        """(status, text) of a request whose body the server may refuse before it is all sent:
        the headers go first; the body only if no answer came to them alone."""
        host, port = self.url.split("//", 1)[1].rstrip("/").rsplit(":", 1)
        with socket.create_connection((host, int(port)), timeout=30) as sock:
            sock.sendall(
                f"{method} {path} HTTP/1.1\r\nHost: {host}:{port}\r\n"
                f"Content-Type: {ctype}\r\nContent-Length: {len(data)}\r\n"
                "Connection: close\r\n\r\n".encode()
            )
            sock.settimeout(2)
            try:
                answered = bool(sock.recv(1, socket.MSG_PEEK))
            except socket.timeout:
                answered = False
            sock.settimeout(30)
            if not answered:
                try:
                    sock.sendall(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass
            r = http.client.HTTPResponse(sock)
            r.begin()
            return r.status, r.read().decode()


def engine_children(pid):
    """The pids of the processes `pid` started (Linux: /proc/PID/task/*/children)."""
    kids = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                kids.extend(f.read().split())
    except OSError:
        pass
    return kids


def descendants(pid):
    """Every process below `pid`, children first (Linux)."""
    out = []
    todo = [str(pid)]
    while todo:
        kids = engine_children(todo.pop())
        out.extend(int(k) for k in kids)
        todo.extend(kids)
    return out


def rss_mb(pid):
    """The resident memory of `pid` in MB (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) // 1024
    except OSError:
        pass
    return 0


def open_events(srv, sid):
    """A raw connection reading the game's event stream, its answer's head read."""
    host, port = srv.url.split("//", 1)[1].rstrip("/").rsplit(":", 1)
    stream = socket.create_connection((host, int(port)), timeout=30)
    stream.sendall(
        f"GET /api/session/{sid}/events HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode()
    )
    head = stream.recv(4096)
    assert b"200 OK" in head, head
    return stream


def process_alive(pid):
    """Whether `pid` runs (a zombie does not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


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


class Page:
    def __init__(self, driver, url):
        self.d = driver
        self.d.get(url)
        self.wait_loaded()

    def wait_loaded(self):
        wait_for("the board", lambda: self.d.find_elements(By.CSS_SELECTOR, "[data-cell]"))
        wait_for("a game", lambda: self.d.execute_script("return !!window.vierGame"))

    def state(self):
        return self.d.execute_script("return window.vierGame")

    def status(self):
        return self.d.find_element(By.CSS_SELECTOR, "[data-status]").get_attribute("data-status")

    def disc(self, col, row):
        return self.d.find_element(By.CSS_SELECTOR, f'[data-cell="{col},{row}"]').get_attribute(
            "data-disc"
        )

    def discs(self):
        return sum(
            1
            for el in self.d.find_elements(By.CSS_SELECTOR, "[data-cell]")
            if el.get_attribute("data-disc")
        )

    def click(self, col):
        self.d.find_element(By.CSS_SELECTOR, f'[data-column="{col}"]').click()

    def choose(self, select_id, value):
        Select(self.d.find_element(By.ID, select_id)).select_by_value(value)

    def person_to_move(self):
        s = self.state()
        return s["status"] != "playing" or s["engine_side"] != s["to_move"]

    def settle(self):
        """Waits until the engine has nothing to play: the game is over or it is a person's turn."""
        wait_for("the engine's move", self.person_to_move)
        return self.state()


def new_driver():
    browser, driver = chromium_paths()
    opts = webdriver.ChromeOptions()
    opts.binary_location = browser
    for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900"):
        opts.add_argument(a)
    return webdriver.Chrome(options=opts, service=Service(executable_path=driver))


class BrowserTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = Server()
        cls.driver = new_driver()

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()
        cls.server.stop()

    def setUp(self):
        # a fresh tab: its own session and game
        self.driver.switch_to.new_window("tab")
        self.page = Page(self.driver, self.server.url)

    def tearDown(self):
        self.driver.close()
        self.driver.switch_to.window(self.driver.window_handles[0])

    def test_page_opens_on_7x6_against_the_engine_with_the_person_first(self):
        p = self.page
        self.assertEqual(len(self.driver.find_elements(By.CSS_SELECTOR, "[data-cell]")), 42)
        self.assertEqual(len(self.driver.find_elements(By.CSS_SELECTOR, "[data-column]")), 7)
        self.assertEqual(p.status(), "playing")
        self.assertEqual(p.discs(), 0)
        self.assertEqual(p.state()["engine_side"], "o")
        self.assertIn("Your turn", self.driver.find_element(By.ID, "status").text)

    def test_engine_first_at_100ms_wins_a_whole_game_played_by_clicks(self):
        p = self.page
        p.choose("movetime", "100")
        wait_for("movetime", lambda: p.state()["movetime"] == 100)
        p.choose("side", "x")
        self.driver.find_element(By.ID, "new").click()
        wait_for("the engine's first disc", lambda: p.disc(4, 1) == "x" or p.discs() == 1)
        while True:
            s = p.settle()
            if s["status"] != "playing":
                break
            # a weak person who still makes the engine search: a fixed order of preferences
            col = next(c for c in (3, 5, 4, 2, 6, 1, 7) if c in s["legal"])
            before = len(s["moves"])
            p.click(col)
            wait_for("the click's disc", lambda: len(p.state()["moves"]) > before)
        self.assertEqual(p.status(), "x-wins")
        self.assertEqual(len(self.driver.find_elements(By.CSS_SELECTOR, ".cell.win")), 4)
        self.assertIn("engine", self.driver.find_element(By.ID, "status").text.lower())
        times = self.driver.execute_script("return window.vierTimings")
        self.assertGreater(len(times), 0)
        line = (
            f"click-to-engine-disc at 100 ms: {len(times)} moves, "
            f"median {statistics.median(times):.0f} ms, worst {max(times):.0f} ms"
        )
        print(line, file=sys.stderr)
        if TIMINGS:
            with open(TIMINGS, "w") as f:
                f.write(line + "\n" + json.dumps(times) + "\n")

    def test_a_chosen_level_plays_a_game_and_persists_into_the_next(self):
        p = self.page
        p.choose("movetime", "100")
        wait_for("movetime", lambda: p.state()["movetime"] == 100)
        p.choose("level", "1")
        wait_for("level 1", lambda: p.state()["level"] == 1)
        shown = self.driver.find_element(By.ID, "level-shown")
        wait_for("the level beside the board", lambda: "level 1" in shown.text)
        # the person plays the first legal column of a fixed order until the game ends
        while True:
            s = p.settle()
            if s["status"] != "playing":
                break
            col = next(c for c in (4, 3, 5, 2, 6, 1, 7) if c in s["legal"])
            before = len(s["moves"])
            p.click(col)
            wait_for("the click's disc", lambda: len(p.state()["moves"]) > before)
        self.assertIn(s["status"], ("x-wins", "o-wins", "draw"))
        self.driver.find_element(By.ID, "new").click()
        wait_for("a new game", lambda: p.state()["moves"] == "" and p.state()["status"] == "playing")
        self.assertEqual(p.state()["level"], 1)
        self.assertEqual(Select(self.driver.find_element(By.ID, "level")).first_selected_option
                         .get_attribute("value"), "1")
        self.assertIn("level 1", self.driver.find_element(By.ID, "level-shown").text)
        # and the level plays the new game's moves too
        p.click(4)
        wait_for("the level's reply", lambda: len(p.state()["moves"]) == 2)
        full = str(len(p.state()["levels"]))
        p.choose("level", full)
        wait_for("full strength", lambda: "full strength" in
                 self.driver.find_element(By.ID, "level-shown").text)

    def analyse(self, moves):
        p = self.page
        p.choose("side", "none")
        wait_for("two people", lambda: p.state()["engine_side"] == "none")
        box = self.driver.find_element(By.ID, "paste")
        box.clear()
        box.send_keys(moves)
        self.driver.find_element(By.CSS_SELECTOR, "#paste-form button").click()
        wait_for("the position", lambda: p.state()["moves"] == moves)
        self.driver.find_element(By.ID, "analyse").click()
        row = self.driver.find_element(By.ID, "analysis")
        wait_for(
            "the analysis",
            lambda: row.get_attribute("data-complete") == "true"
            and row.get_attribute("data-moves") == moves,
        )
        shown = []
        for c in range(1, p.state()["width"] + 1):
            el = self.driver.find_element(By.CSS_SELECTOR, f'[data-analysis-column="{c}"]')
            shown.append(el.get_attribute("data-score") or "-")
        return shown

    def test_analysis_equals_vier_solve_all(self):
        for moves in ("32164", "444433256", "4455"):
            solved = subprocess.run(
                [VIER, "solve", "--all"], input=moves + "\n", capture_output=True, text=True
            ).stdout.split()
            shown = self.analyse(moves)
            self.assertEqual(shown, solved[1:8], f"position {moves}")
            best = self.driver.find_elements(By.CSS_SELECTOR, "#analysis .best")
            top = max(int(v) for v in shown if v != "-")
            self.assertEqual(
                sorted(int(b.get_attribute("data-analysis-column")) for b in best),
                [i + 1 for i, v in enumerate(shown) if v != "-" and int(v) == top],
            )

    def test_a_full_column_has_no_value(self):
        shown = self.analyse("444444")
        solved = subprocess.run(
            [VIER, "solve", "--all"], input="444444\n", capture_output=True, text=True
        ).stdout.split()
        self.assertEqual(shown[3], "-")
        self.assertEqual(shown, solved[1:8])

    def test_undo_and_redo_against_the_engine(self):
        p = self.page
        p.choose("movetime", "100")
        p.click(4)
        s = wait_for("the engine's reply", lambda: len(p.state()["moves"]) == 2 and p.state())
        reply = int(s["moves"][1])
        self.driver.find_element(By.ID, "undo").click()
        wait_for("the undo", lambda: p.state()["moves"] == "")
        self.assertEqual(p.discs(), 0)
        self.assertEqual(p.disc(4, 1), "")
        self.driver.find_element(By.ID, "redo").click()
        wait_for("the redo", lambda: p.state()["moves"] == s["moves"])
        self.assertEqual(p.disc(4, 1), "x")
        self.assertEqual(p.disc(reply, 2 if reply == 4 else 1), "o")

    def play_a_game_by_clicks_on(self, size, first=None):
        """Chooses `size`, clicks `first` (if given), then legal columns in turn until the game is over."""
        p = self.page
        width, height = map(int, size.split("x"))
        p.choose("movetime", "100")
        p.choose("size", size)
        wait_for(f"the {size} board", lambda: len(
            self.driver.find_elements(By.CSS_SELECTOR, "[data-cell]")) == width * height)
        self.assertEqual(len(self.driver.find_elements(By.CSS_SELECTOR, "[data-column]")), width)
        moves = 0
        while True:
            s = p.settle()
            if s["status"] != "playing":
                break
            col = first if first and not s["moves"] else s["legal"][len(s["moves"]) % len(s["legal"])]
            before = len(s["moves"])
            p.click(col)
            wait_for("the click's disc", lambda: len(p.state()["moves"]) > before)
            moves += 1
        self.assertIn(p.status(), ("x-wins", "o-wins", "draw"))
        self.assertGreater(moves, 1)
        self.assertEqual(p.discs(), len(p.state()["moves"]))
        return p.state()

    def test_5x4_game_against_the_engine(self):
        self.play_a_game_by_clicks_on("5x4")

    def test_12x4_game_against_the_engine_reaches_the_columns_past_9(self):
        s = self.play_a_game_by_clicks_on("12x4", first=12)
        # past 9 columns the moves are letters, one a disc: the first click went to column 12
        self.assertRegex(s["moves"], "^l[a-l]+$")

    def test_8x8_game_against_the_engine(self):
        s = self.play_a_game_by_clicks_on("8x8")
        self.assertRegex(s["moves"], "^[1-8]+$")

    def test_12_columns_fit_a_laptop_and_a_400_px_phone(self):
        p = self.page
        p.choose("size", "12x4")
        wait_for("the 12x4 board", lambda: len(
            self.driver.find_elements(By.CSS_SELECTOR, "[data-column]")) == 12)
        for c in (12, 1, 10):
            n = len(p.state()["moves"])
            p.click(c)
            wait_for("the engine's reply", lambda: len(p.state()["moves"]) == n + 2)
        try:
            for name, width, height, mobile in (("laptop", 1280, 800, False), ("phone", 400, 800, True)):
                self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
                    "width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})
                wait_for(f"the {name} layout", lambda: self.driver.execute_script(
                    "return window.innerWidth") == width)
                wait_for("the animations", lambda: self.driver.execute_script(
                    "return document.getAnimations().length === 0"))
                page_width, board_right, smallest = self.driver.execute_script("""
                    const cols = [...document.querySelectorAll('[data-column]')];
                    return [document.documentElement.scrollWidth,
                            Math.max(...cols.map(c => c.getBoundingClientRect().right)),
                            Math.min(...cols.map(c => c.getBoundingClientRect().width))];""")
                # the whole board in the window, no sideways scrolling, columns a finger wide
                self.assertLessEqual(page_width, width, name)
                self.assertLessEqual(board_right, width, name)
                self.assertGreaterEqual(smallest, 24, name)
                if SCREENSHOT:
                    ActionChains(self.driver).move_to_element(
                        self.driver.find_element(By.TAG_NAME, "h1")).perform()
                    self.driver.save_screenshot(SCREENSHOT.removesuffix(".png") + f"-12x4-{name}.png")
        finally:
            self.driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})

    def test_two_people_need_no_engine(self):
        # a server whose engine cannot even start
        srv = Server("--engine", os.path.join(HERE, "no-such-engine"))
        try:
            self.two_people(Page(self.driver, srv.url))
        finally:
            srv.stop()

    def two_people(self, p):
        p.choose("side", "none")
        wait_for("two people", lambda: p.state()["engine_side"] == "none")
        for c in (4, 3, 4):
            n = len(p.state()["moves"])
            p.click(c)
            wait_for("the disc", lambda: len(p.state()["moves"]) == n + 1)
        self.assertEqual(p.state()["moves"], "434")
        self.assertEqual((p.disc(4, 1), p.disc(3, 1), p.disc(4, 2)), ("x", "o", "x"))
        self.assertEqual(p.state()["engine"]["state"], "error")
        self.assertIn("Orange", self.driver.find_element(By.ID, "status").text)

    def test_keys_play_and_undo(self):
        p = self.page
        p.choose("side", "none")
        wait_for("two people", lambda: p.state()["engine_side"] == "none")
        body = self.driver.find_element(By.TAG_NAME, "body")
        body.send_keys("5")
        wait_for("the disc in column 5", lambda: p.disc(5, 1) == "x")
        body.send_keys("u")
        wait_for("the undo", lambda: p.disc(5, 1) == "")
        # a column button with the keyboard focus plays on Enter
        self.driver.find_element(By.CSS_SELECTOR, '[data-column="2"]').send_keys("\n")
        wait_for("the disc in column 2", lambda: p.disc(2, 1) == "x")

    def keys_play(self, body, moves):
        """Plays `moves` with the digit keys, one answered before the next."""
        for i in range(len(moves)):
            body.send_keys(moves[i])
            wait_for(f"the move {moves[i]}", lambda: self.page.state()["moves"] == moves[:i + 1])

    def test_a_link_restores_its_position_and_the_address_follows_the_moves(self):
        p = self.page
        self.driver.get(self.server.url + "#7x6/445")
        wait_for("the link's position", lambda: p.state()["moves"] == "445")
        self.assertEqual(p.state()["engine_side"], "x", "the engine takes the side not to move")
        p.choose("movetime", "100")
        p.click(3)
        wait_for("the engine's reply", lambda: len(p.state()["moves"]) == 5)
        self.assertEqual(self.driver.execute_script("return location.hash"),
                         "#7x6/" + p.state()["moves"])

    def test_any_address_shows_the_board_or_says_why_it_names_no_position(self):
        # issue 74: a malformed `%` in the address threw in app.js, the page stuck on "Starting…"
        p = self.page
        for address in ("#%", "#7x6/%", "#%E0%A4%A"):
            # loaded anew (not a hash change within the page)
            self.driver.get("about:blank")
            self.driver.get(self.server.url + address)
            wait_for(f"why {address} names no position", lambda: "names no position"
                     in self.driver.find_element(By.ID, "message").text)
            s = p.state()
            self.assertEqual(len(self.driver.find_elements(By.CSS_SELECTOR, "[data-cell]")),
                             s["width"] * s["height"], address)
            self.assertEqual(self.driver.execute_script("return location.hash"), "#" + s["link"])

    def test_a_reload_keeps_the_game_even_when_the_server_forgot_it(self):
        p = self.page
        p.choose("side", "none")
        wait_for("two people", lambda: p.state()["engine_side"] == "none")
        body = self.driver.find_element(By.TAG_NAME, "body")
        self.keys_play(body, "44531")
        body.send_keys(Keys.ARROW_LEFT)
        wait_for("a move back", lambda: p.state()["ply"] == 4)
        sid = p.state()["id"]
        self.driver.refresh()
        p.wait_loaded()
        self.assertEqual((p.state()["id"], p.state()["line"], p.state()["ply"]), (sid, "44531", 4))
        # eight newer games: this one is dropped; the page restores what it kept
        for _ in range(8):
            self.server.request("POST", "/api/session")
        self.driver.refresh()
        p.wait_loaded()
        wait_for("the game restored", lambda: p.state()["line"] == "44531")
        s = p.state()
        self.assertNotEqual(s["id"], sid)
        self.assertEqual((s["ply"], s["moves"], s["engine_side"]), (4, "4453", "none"))

    def test_the_move_list_steps_back_and_forward(self):
        p = self.page
        p.choose("side", "none")
        wait_for("two people", lambda: p.state()["engine_side"] == "none")
        body = self.driver.find_element(By.TAG_NAME, "body")
        self.keys_play(body, "4453")
        for key, ply in ((Keys.ARROW_LEFT, 3), (Keys.HOME, 0), (Keys.ARROW_RIGHT, 1), (Keys.END, 4)):
            body.send_keys(key)
            wait_for(f"move {ply}", lambda: p.state()["ply"] == ply)
            self.assertEqual(p.discs(), ply)
        self.driver.find_element(By.CSS_SELECTOR, '#movelist button[data-ply="2"]').click()
        wait_for("move 2", lambda: p.state()["moves"] == "44")

    def test_a_finished_games_review_marks_the_planted_blunder(self):
        # tests/web/test_page.py plays the same game in the page without a server
        planted, at = "44141434", 3
        p = self.page
        p.choose("side", "none")
        wait_for("two people", lambda: p.state()["engine_side"] == "none")
        box = self.driver.find_element(By.ID, "paste")
        box.send_keys(planted)
        self.driver.find_element(By.CSS_SELECTOR, "#paste-form button").click()
        wait_for("the review", lambda: (r := p.state()["review"]) and r["complete"], limit=120)
        marks = [n["mark"] for n in p.state()["review"]["notes"]]
        self.assertEqual(marks[at - 1], "blunder")
        sign = lambda v: (v > 0) - (v < 0)  # noqa: E731
        for i, c in enumerate(planted):
            values = subprocess.run([VIER, "solve", "--all"], input=(planted[:i] or "-") + "\n",
                                    capture_output=True, text=True).stdout.split()[1:8]
            best = max(int(v) for v in values if v != "-")
            played = int(values[int(c) - 1])
            want = ("blunder" if sign(best) != sign(played) else
                    "mistake" if played < best else "good")
            self.assertEqual(marks[i], want, f"move {i + 1}")

    def test_two_games_at_level_1_differ(self):
        p = self.page
        p.choose("movetime", "100")
        wait_for("movetime", lambda: p.state()["movetime"] == 100)
        p.choose("level", "1")
        wait_for("level 1", lambda: p.state()["level"] == 1)
        p.choose("side", "x")
        wait_for("the engine first", lambda: p.state()["engine_side"] == "x")
        games = []
        for _ in range(2):
            self.driver.find_element(By.ID, "new").click()
            wait_for("the new game", lambda: len(p.state()["line"]) <= 1)
            wait_for("the engine's first move", lambda: len(p.state()["moves"]) >= 1)
            while len(p.state()["moves"]) < 14:
                s = p.settle()
                if s["status"] != "playing":
                    break
                n = len(s["moves"])
                p.click(next(c for c in (4, 3, 5, 2, 6, 1, 7) if c in s["legal"]))
                wait_for("the reply", lambda: len(p.state()["moves"]) >= n + 2
                         or p.state()["status"] != "playing")
            games.append(p.settle()["moves"])
        self.assertNotEqual(games[0], games[1], "level 1 played the same game twice")

    def test_two_tabs_keep_their_own_games(self):
        p = self.page
        p.choose("side", "none")
        wait_for("two people", lambda: p.state()["engine_side"] == "none")
        p.click(1)
        wait_for("the disc", lambda: p.disc(1, 1) == "x")
        mine = self.driver.current_window_handle
        my_id = p.state()["id"]
        self.driver.switch_to.new_window("tab")
        other = Page(self.driver, self.server.url)
        self.assertEqual(other.discs(), 0)
        self.assertNotEqual(other.state()["id"], my_id)
        other.choose("side", "none")
        wait_for("two people", lambda: other.state()["engine_side"] == "none")
        other.click(7)
        wait_for("the disc", lambda: other.disc(7, 1) == "x")
        self.driver.close()
        self.driver.switch_to.window(mine)
        self.assertEqual(p.state()["moves"], "1")
        self.assertEqual(p.disc(7, 1), "")

    def test_a_crashed_engine_is_reported_in_the_page_and_restarted(self):
        p = self.page
        p.choose("movetime", "100")
        pid = wait_for("the engine", lambda: p.state()["engine"]["pid"])
        os.kill(pid, signal.SIGKILL)
        p.click(4)
        th = self.driver.find_element(By.ID, "thinking")
        wait_for("the report", lambda: "restarted" in th.text)
        self.assertIn("Engine problem", th.text)
        wait_for("the restarted engine's move", lambda: len(p.state()["moves"]) == 2)
        self.assertNotEqual(p.state()["engine"]["pid"], pid)

    def test_a_page_of_another_origin_cannot_change_a_game(self):
        # a game on this server, one move played by two people
        st, snap = self.server.request("POST", "/api/session")
        sid = snap["id"]
        self.server.request("POST", f"/api/session/{sid}/settings", {"engine": "none"})
        self.assertEqual(self.server.request("POST", f"/api/session/{sid}/move", {"column": 4})[0], 200)
        # a page of another origin (another server's port) that knows the port and the id
        other = Server()
        try:
            self.driver.get(other.url)
            target = self.server.url.rstrip("/")
            outcome = self.driver.execute_async_script(
                """const [url, done] = arguments;
                Promise.all([
                    fetch(url + '/undo', {method: 'POST', mode: 'no-cors'}),
                    fetch(url.replace(/\\/api\\/session\\/.*/, '/api/session'),
                          {method: 'POST', mode: 'no-cors'}),
                ]).then(() => done('sent'), e => done('failed: ' + e));""",
                f"{target}/api/session/{sid}",
            )
            self.assertEqual(outcome, "sent")
        finally:
            other.stop()
        st, now = self.server.request("GET", f"/api/session/{sid}")
        self.assertEqual(st, 200, "the game was not evicted")
        self.assertEqual(now["moves"], "4", "the undo from the other origin was refused")

    def test_screenshot_of_a_game_with_the_analysis(self):
        p = self.page
        p.choose("movetime", "100")
        self.driver.find_element(By.ID, "always").click()
        for c in (4, 3, 5):
            n = len(p.state()["moves"])
            p.click(c)
            wait_for("the engine's reply", lambda: len(p.state()["moves"]) == n + 2)
        row = self.driver.find_element(By.ID, "analysis")
        wait_for("the analysis", lambda: row.get_attribute("data-complete") == "true")
        self.assertEqual(
            len(self.driver.find_elements(By.CSS_SELECTOR, "#analysis [data-score]")), 7
        )
        if SCREENSHOT:
            # a still picture: the falling discs landed, the pointer off the board
            wait_for("the animations", lambda: self.driver.execute_script(
                "return document.getAnimations().length === 0"))
            ActionChains(self.driver).move_to_element(
                self.driver.find_element(By.TAG_NAME, "h1")).perform()
            self.driver.save_screenshot(SCREENSHOT)


class HttpTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = Server()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def new(self):
        st, snap = self.server.request("POST", "/api/session")
        self.assertEqual(st, 201)
        sid = snap["id"]
        st, snap = self.server.request("POST", f"/api/session/{sid}/settings", {"engine": "none"})
        self.assertEqual(st, 200)
        st, snap = self.server.request("POST", f"/api/session/{sid}/move", {"column": 4})
        self.assertEqual(st, 200)
        return sid, snap

    def assert_unchanged(self, sid, snap):
        st, now = self.server.request("GET", f"/api/session/{sid}")
        self.assertEqual(st, 200)
        # the game, not the version: the engine's own state changes on its own
        for key in ("moves", "size", "engine_side", "movetime", "level", "analysis_always",
                    "can_redo"):
            self.assertEqual(now[key], snap[key], key)
        self.assertTrue(self.server.alive())

    def test_bad_requests_get_a_4xx_with_a_reason_and_change_nothing(self):
        sid, snap = self.new()
        base = f"/api/session/{sid}"
        cases = [
            ("POST", base + "/move", None, b"{not json", 400),
            ("POST", base + "/move", None, b'{"column": "four"}', 422),
            ("POST", base + "/move", None, b'{"column": 4, "extra": 1}', 422),
            ("POST", base + "/move", None, b"x" * (1 << 20), 413),
            ("POST", base + "/move", {"column": 0}, None, 409),
            ("POST", base + "/move", {"column": 8}, None, 409),
            ("POST", base + "/move", {"column": -1}, None, 422),
            ("POST", base + "/settings", {"movetime": 0}, None, 400),
            ("POST", base + "/settings", {"engine": "martian"}, None, 400),
            ("POST", base + "/settings", {"level": 0}, None, 400),
            ("POST", base + "/settings", {"level": 10}, None, 400),
            ("POST", base + "/settings", {"level": "weak"}, None, 422),
            ("POST", base + "/new", {"size": "9x9"}, None, 400),
            ("POST", base + "/position", {"text": "4444444"}, None, 400),
            ("POST", base + "/position", {"text": "8/7/7/7/7/7 x"}, None, 400),
            ("POST", base + "/redo", None, None, 409),
            ("GET", "/etc/passwd", None, None, 404),
            ("GET", "/../Cargo.toml", None, None, 404),
            ("GET", "/api/session/nosuchgame", None, None, 404),
            ("DELETE", base, None, None, 405),
        ]
        for method, path, body, raw, want in cases:
            st, answer = self.server.request(method, path, body=body, raw=raw)
            self.assertEqual(st, want, f"{method} {path} {body or (raw or b'')[:30]}")
            self.assertTrue(answer.get("error"), f"a reason for {path}: {answer}")
            self.assert_unchanged(sid, snap)
        # the oversized body again, sent the way that never races the server's early answer
        st, text = self.server.send_and_read_answer(
            "POST", base + "/move", b"x" * (1 << 20), "application/json"
        )
        self.assertEqual(st, 413)
        self.assertTrue(json.loads(text).get("error"), text)
        self.assert_unchanged(sid, snap)

    def test_a_filled_column_and_a_finished_game_refuse_moves(self):
        sid, snap = self.new()
        for c in (4, 4, 4, 4, 4):
            self.assertEqual(self.server.request("POST", f"/api/session/{sid}/move", {"column": c})[0], 200)
        st, snap = self.server.request("GET", f"/api/session/{sid}")
        st, answer = self.server.request("POST", f"/api/session/{sid}/move", {"column": 4})
        self.assertEqual(st, 409)
        self.assertIn("full", answer["error"])
        self.assert_unchanged(sid, snap)
        for c in (1, 3, 1, 3, 1, 3, 1):
            self.server.request("POST", f"/api/session/{sid}/move", {"column": c})
        st, snap = self.server.request("GET", f"/api/session/{sid}")
        self.assertEqual(snap["status"], "x-wins")
        st, answer = self.server.request("POST", f"/api/session/{sid}/move", {"column": 2})
        self.assertEqual(st, 409)
        self.assert_unchanged(sid, snap)

    def test_a_killed_engine_is_reported_and_restarted(self):
        sid, _ = self.server.first_move({"movetime": 100})
        snap = wait_for(
            "the engine's reply",
            lambda: (s := self.server.request("GET", f"/api/session/{sid}")[1])["to_move"] == "x"
            and s["engine"]["pid"]
            and s,
        )
        os.kill(snap["engine"]["pid"], signal.SIGKILL)
        # the engine is dead: a move is still answered, and the engine comes back to reply
        st, _ = self.server.request("POST", f"/api/session/{sid}/move", {"column": 3})
        self.assertEqual(st, 200)
        snap = wait_for(
            "the restarted engine's reply",
            lambda: len((s := self.server.request("GET", f"/api/session/{sid}")[1])["moves"]) == 4
            and s,
        )
        self.assertEqual(snap["engine"]["restarts"], 1)
        self.assertTrue(self.server.alive())

    def test_an_engine_that_cannot_start_is_reported_and_the_server_lives(self):
        bad = Server("--engine", os.path.join(HERE, "no-such-engine"))
        try:
            st, snap = bad.request("POST", "/api/session")
            sid = snap["id"]
            st, _ = bad.request("POST", f"/api/session/{sid}/move", {"column": 4})
            self.assertEqual(st, 200)
            snap = wait_for(
                "the engine error",
                lambda: (s := bad.request("GET", f"/api/session/{sid}")[1])["engine"]["state"] == "error"
                and s,
            )
            self.assertIn("cannot start engine", snap["engine"]["message"])
            # requests after the failure: answered, and a refused one changes nothing
            st, _ = bad.request("POST", f"/api/session/{sid}/move", {"column": 4})
            self.assertEqual(st, 409)
            st, after = bad.request("GET", f"/api/session/{sid}")
            self.assertEqual(after["moves"], "4")
            st, _ = bad.request("POST", f"/api/session/{sid}/undo")
            self.assertEqual(st, 200)
            self.assertTrue(bad.alive())
        finally:
            bad.stop()

    def test_a_request_for_another_host_is_refused(self):
        # a page elsewhere that resolves its own name to 127.0.0.1 (DNS rebinding)
        req = urllib.request.Request(self.server.url + "api/session", data=b"", method="POST")
        req.add_header("Host", "evil.example")
        with self.assertRaises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(req, timeout=30)
        self.assertEqual(e.exception.code, 403)
        self.assertIn("evil.example", e.exception.read().decode())

    def test_cross_origin_requests_that_change_state_are_refused(self):
        sid, snap = self.new()
        host = self.server.url.split("//", 1)[1].rstrip("/")
        for headers in (
            {"Origin": "http://evil.example"},
            {"Origin": "http://127.0.0.1:1"},
            {"Sec-Fetch-Site": "cross-site"},
            {"Sec-Fetch-Site": "same-site", "Origin": f"http://{host}"},
        ):
            for path in ("/api/session", f"/api/session/{sid}/undo"):
                req = urllib.request.Request(self.server.url.rstrip("/") + path, data=b"", method="POST")
                for k, v in headers.items():
                    req.add_header(k, v)
                with self.assertRaises(urllib.error.HTTPError, msg=f"{path} {headers}") as e:
                    urllib.request.urlopen(req, timeout=30)
                self.assertEqual(e.exception.code, 403, f"{path} {headers}")
                self.assertIn("own page", e.exception.read().decode())
        self.assert_unchanged(sid, snap)
        # the page's own requests pass, as do reads from anywhere
        req = urllib.request.Request(
            self.server.url.rstrip("/") + f"/api/session/{sid}/undo", data=b"", method="POST"
        )
        req.add_header("Origin", f"http://{host}")
        req.add_header("Sec-Fetch-Site", "same-origin")
        with urllib.request.urlopen(req, timeout=30) as r:
            self.assertEqual(r.status, 200)
        req = urllib.request.Request(self.server.url.rstrip("/") + f"/api/session/{sid}")
        req.add_header("Origin", "http://evil.example")
        with urllib.request.urlopen(req, timeout=30) as r:
            self.assertEqual(r.status, 200)

    def test_a_body_of_4_mib_gets_a_413_not_a_reset(self):
        sid, snap = self.new()
        req = urllib.request.Request(
            self.server.url.rstrip("/") + f"/api/session/{sid}/move",
            data=b"x" * (4 << 20),
            method="POST",
        )
        req.add_header("Content-Type", "application/json")
        with self.assertRaises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(req, timeout=60)
        self.assertEqual(e.exception.code, 413)
        self.assertIn("at most", json.loads(e.exception.read().decode())["error"])
        self.assert_unchanged(sid, snap)

    def test_a_burst_of_new_games_never_runs_more_engines_than_the_cap(self):
        cap = 8  # MAX_SESSIONS in src/gui/server.rs
        srv = Server()
        peak = [0]
        done = threading.Event()

        def watch():
            while not done.is_set():
                peak[0] = max(peak[0], len(engine_children(srv.proc.pid)))
                time.sleep(0.002)

        watcher = threading.Thread(target=watch)
        watcher.start()
        try:
            ids = []
            for _ in range(200):
                st, snap = srv.request("POST", "/api/session")
                self.assertEqual(st, 201)
                ids.append(snap["id"])
            # the last games get their engines, once the evicted games' engines have ended
            wait_for(
                "the newest games' engines",
                lambda: all(
                    srv.request("GET", f"/api/session/{i}")[1]["engine"]["state"] == "ready"
                    for i in ids[-cap:]
                ),
            )
            wait_for("the evicted engines to end", lambda: len(engine_children(srv.proc.pid)) <= cap)
        finally:
            done.set()
            watcher.join()
            alive = srv.alive()
            srv.stop()
        print(f"engine processes at most {peak[0]} during a burst of 200 new games", file=sys.stderr)
        self.assertGreater(peak[0], 0, "the watcher saw the engines")
        self.assertLessEqual(peak[0], cap)
        self.assertTrue(alive)

    def test_a_game_dropped_to_make_room_ends_its_engine_and_its_event_stream(self):
        # issue 60: a dropped game's engine searched on (up to a minute here), holding its slot
        # while a newer game stayed "starting", and its event stream never ended
        cap = 8  # MAX_SESSIONS in src/gui/server.rs
        srv = self.fake("hang")
        try:
            sid, status = srv.first_move({"movetime": 60000})
            self.assertEqual(status, 200)
            snap = wait_for(
                "the engine to think",
                lambda: (s := srv.request("GET", f"/api/session/{sid}")[1])["engine"]["state"] == "thinking"
                and s["engine"]["pid"]
                and s,
            )
            pid = snap["engine"]["pid"]
            host, port = srv.url.split("//", 1)[1].rstrip("/").rsplit(":", 1)
            stream = socket.create_connection((host, int(port)), timeout=30)
            stream.sendall(
                f"GET /api/session/{sid}/events HTTP/1.1\r\nHost: {host}:{port}\r\n"
                "Connection: close\r\n\r\n".encode()
            )
            self.assertIn(b"200 OK", stream.recv(4096))
            # eight newer games: the oldest, thinking, makes room
            ids = [srv.request("POST", "/api/session")[1]["id"] for _ in range(cap)]
            # its event stream ends (the server closes the connection) within half a minute,
            # not once the engine's minute is up
            ended = False
            end = time.monotonic() + 30
            try:
                while time.monotonic() < end:
                    stream.settimeout(max(0.1, end - time.monotonic()))
                    if not stream.recv(4096):
                        ended = True
                        break
            except socket.timeout:
                pass
            finally:
                stream.close()
            self.assertTrue(ended, "the dropped game's event stream goes on")
            wait_for("the dropped game's engine to end", lambda: not process_alive(pid), limit=30)
            # every newer game gets an engine: the last one needed the dropped game's slot
            wait_for(
                "the newer games' engines",
                lambda: all(srv.request("GET", f"/api/session/{i}")[1]["engine"]["state"] == "ready"
                            for i in ids),
                limit=30,
            )
            self.assertEqual(srv.request("GET", f"/api/session/{sid}")[0], 404)
        finally:
            srv.stop()

    def fake(self, mode):
        return Server("--engine", f"{sys.executable} {os.path.join(HERE, 'fake_engine.py')} {mode}")

    def test_an_engine_that_speaks_column_digits(self):
        srv = self.fake("digits")
        try:
            sid, status = srv.first_move()
            self.assertEqual(status, 200)
            snap = wait_for(
                "the fake engine's reply",
                lambda: (s := srv.request("GET", f"/api/session/{sid}")[1])["moves"] == "41" and s,
            )
            self.assertEqual(snap["engine"]["state"], "ready")
        finally:
            srv.stop()

    def test_a_hung_engine_is_reported_and_restarted(self):
        srv = self.fake("hang")
        try:
            sid, status = srv.first_move({"movetime": 100})
            self.assertEqual(status, 200)
            snap = wait_for(
                "the hang to be noticed",
                lambda: (s := srv.request("GET", f"/api/session/{sid}")[1])["engine"]["restarts"] > 0
                and s,
            )
            self.assertIn("hung", snap["engine"]["message"])
            self.assertEqual(snap["moves"], "4")
            # the person can take the game over meanwhile
            st, snap = srv.request("POST", f"/api/session/{sid}/settings", {"engine": "none"})
            self.assertEqual(st, 200)
            self.assertEqual(srv.request("POST", f"/api/session/{sid}/move", {"column": 3})[0], 200)
            self.assertTrue(srv.alive())
        finally:
            srv.stop()

    def state_of(self, srv, sid):
        return srv.request("GET", f"/api/session/{sid}")[1]

    def test_a_dropped_games_engine_stops_at_once_and_thinks_again_when_its_tab_is_back(self):
        # issue 68: a game whose tab's event stream closed while its engine thought (an analysis
        # of the empty 9x7 board, a 60 s move) searched on for all its time
        srv = Server()
        try:
            sid = srv.request("POST", "/api/session")[1]["id"]
            self.assertEqual(srv.request("POST", f"/api/session/{sid}/settings", {"movetime": 60000})[0], 200)
            stream = open_events(srv, sid)
            st, _ = srv.request("POST", f"/api/session/{sid}/new", {"size": "9x7", "engine": "x"})
            self.assertEqual(st, 200)
            snap = wait_for(
                "the engine to think",
                lambda: (s := self.state_of(srv, sid))["engine"]["state"] == "thinking" and s,
            )
            pid = snap["engine"]["pid"]
            stream.close()
            # reading the game's state is not watching it: the search stays stopped
            snap = wait_for(
                "the dropped game's engine to stop",
                lambda: (s := self.state_of(srv, sid))["engine"]["state"] == "ready" and s,
                limit=20,
            )
            self.assertEqual(snap["moves"], "", "a stopped search plays no move")
            self.assertEqual(snap["engine"]["restarts"], 0, "vier answers stop: it is not ended")
            self.assertTrue(process_alive(pid))
            # the tab comes back: the engine thinks again, on the same engine
            stream = open_events(srv, sid)
            snap = wait_for(
                "the engine to think again",
                lambda: (s := self.state_of(srv, sid))["engine"]["state"] == "thinking" and s,
            )
            self.assertEqual(snap["engine"]["pid"], pid)
            stream.close()
        finally:
            srv.stop()

    def test_a_dropped_games_engine_that_does_not_answer_stop_is_ended(self):
        srv = self.fake("hang")
        try:
            sid = srv.request("POST", "/api/session")[1]["id"]
            stream = open_events(srv, sid)
            srv.request("POST", f"/api/session/{sid}/settings", {"movetime": 60000})
            self.assertEqual(srv.request("POST", f"/api/session/{sid}/move", {"column": 4})[0], 200)
            snap = wait_for(
                "the engine to think",
                lambda: (s := self.state_of(srv, sid))["engine"]["state"] == "thinking"
                and s["engine"]["pid"]
                and s,
            )
            pid = snap["engine"]["pid"]
            below = descendants(pid)
            stream.close()
            # `stop` at once, unanswered: ended a second later (before: at the end of the minute)
            wait_for(
                "the dropped game's engine to end",
                lambda: not any(process_alive(p) for p in [pid, *below]),
                limit=20,
            )
            self.assertIn("'stop' within 1 s", self.state_of(srv, sid)["engine"]["message"])
        finally:
            srv.stop()

    def watch_memory(self, srv, bound_mb, until, what, limit=60.0):
        """Polls `until` while the server's resident memory stays below `bound_mb`; the peak."""
        peak = 0
        end = time.monotonic() + limit
        while True:
            peak = max(peak, rss_mb(srv.proc.pid))
            self.assertLess(peak, bound_mb, f"the gui grew to {peak} MB waiting for {what}")
            v = until()
            if v:
                return peak, v
            if time.monotonic() > end:
                raise AssertionError(f"timed out waiting for {what} (the gui at {peak} MB)")
            time.sleep(0.05)

    def test_an_engine_writing_an_endless_line_is_restarted_and_the_gui_stays_small(self):
        # issue 68: an engine's line without an end took the gui to 3 GB in 15 s
        srv = self.fake("endless")
        try:
            sid, status = srv.first_move()
            self.assertEqual(status, 200)
            peak, snap = self.watch_memory(
                srv, 200, lambda: (s := self.state_of(srv, sid))["engine"]["restarts"] >= 2 and s,
                "two restarts",
            )
            self.assertIn("a line of more than 64 KiB", snap["engine"]["message"])
            print(f"the gui at most {peak} MB beside an engine writing an endless line", file=sys.stderr)
        finally:
            srv.stop()

    def test_an_engine_writing_lines_without_end_is_restarted_and_the_gui_stays_small(self):
        srv = self.fake("chatter")
        try:
            sid, status = srv.first_move()
            self.assertEqual(status, 200)
            peak, snap = self.watch_memory(
                srv, 200, lambda: (s := self.state_of(srv, sid))["engine"]["restarts"] >= 2 and s,
                "two restarts",
            )
            self.assertIn("lines in a second", snap["engine"]["message"])
            print(f"the gui at most {peak} MB beside an engine writing info lines without end",
                  file=sys.stderr)
        finally:
            srv.stop()

    def test_what_an_exiting_engine_leaves_behind_ends_with_it(self):
        # issue 68: a child the engine started in a session of its own outlived it, holding
        # the gui's pipe
        pidfile = os.path.join(self.tmp(), "orphan.pid")
        srv = Server("--engine", f"{sys.executable} {os.path.join(HERE, 'fake_engine.py')} orphan {pidfile}")
        child = None
        try:
            sid, status = srv.first_move()
            self.assertEqual(status, 200)
            snap = wait_for(
                "the engine's exit to be seen",
                lambda: (s := self.state_of(srv, sid))["engine"]["restarts"] >= 1 and s,
            )
            self.assertIn("exit status: 3", snap["engine"]["message"])
            def written():
                with open(pidfile) as fh:
                    return fh.read()

            child = int(wait_for("the child's pid", lambda: os.path.exists(pidfile) and written()))
            wait_for("the engine's child to end", lambda: not process_alive(child), limit=20)
        finally:
            if child and process_alive(child):
                os.kill(child, signal.SIGKILL)
            srv.stop()

    def test_sigterm_to_the_gui_ends_its_engines(self):
        # issue 68: a hung engine outlived the gui
        srv = self.fake("stuck")
        engines = []
        try:
            sid, status = srv.first_move({"movetime": 60000})
            self.assertEqual(status, 200)
            wait_for("the engine to think", lambda: self.state_of(srv, sid)["engine"]["state"] == "thinking")
            engines = descendants(srv.proc.pid)
            self.assertTrue(engines)
            srv.proc.send_signal(signal.SIGTERM)
            srv.proc.wait(30)
            wait_for("the engines to end", lambda: not any(process_alive(p) for p in engines), limit=20)
        finally:
            for p in engines:
                if process_alive(p):
                    os.kill(p, signal.SIGKILL)
            srv.stop()

    def test_the_browser_opener_is_reaped_and_a_failure_is_said(self):
        # issue 76: `vier gui` left a defunct xdg-open and said nothing when no browser opened
        bin_dir = self.tmp()
        opener = os.path.join(bin_dir, "xdg-open")
        with open(opener, "w") as fh:
            fh.write("#!/bin/sh\nexit 3\n")
        os.chmod(opener, 0o755)
        for path, why in ((bin_dir, "xdg-open exit status: 3"), (self.tmp(), "xdg-open: ")):
            proc = subprocess.Popen([VIER, "gui", "--port", "0"], stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True,
                                    env={**os.environ, "PATH": path})
            try:
                self.assertIn("http://", proc.stdout.readline())
                ready = select.select([proc.stderr], [], [], 20)[0]
                self.assertTrue(ready, "vier gui said nothing of the browser it could not open")
                line = proc.stderr.readline()
                self.assertIn("no browser was opened", line)
                self.assertIn(why, line)
                time.sleep(0.5)
                left = []
                for task in os.listdir(f"/proc/{proc.pid}/task"):
                    with open(f"/proc/{proc.pid}/task/{task}/children") as fh:
                        left += [int(p) for p in fh.read().split()]
                self.assertEqual(left, [], "the opener is reaped")
            finally:
                proc.terminate()
                proc.wait(10)
                proc.stdout.close()
                proc.stderr.close()

    def tmp(self):
        import tempfile
        d = tempfile.mkdtemp(prefix="vier-gui-")
        self.addCleanup(shutil.rmtree, d, True)
        return d

    def test_only_127_0_0_1_by_default_and_the_page_is_embedded(self):
        self.assertTrue(self.server.url.startswith("http://127.0.0.1:"))
        for path, kind in (
            ("/", "<!doctype html>"),
            ("/app.js", "vierBackend"),
            ("/backend.js", "EventSource"),
            ("/style.css", ".cell"),
        ):
            st, text = self.server.request("GET", path)
            self.assertEqual(st, 200)
            self.assertIn(kind, text)


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=2).result
    sys.exit(0 if result.wasSuccessful() and result.testsRun > 0 else 1)
