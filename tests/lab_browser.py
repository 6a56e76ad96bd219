#!/usr/bin/python3
"""The laboratory in a real browser (docs/lab.md): drives headless Chromium (Debian's chromium and
chromium-driver through python3-selenium) against a page `pe-bench lab` wrote.

Checks: the page loads with no console error and no network request (every request a file: or data:
URL); it is drawn within a second or so (the time is printed); the clock's readout is the payload's
value for the offset, moving m and n by keyboard and by mouse changes it to the payload's value for the
new offset, and with the offset locked moving a slider leaves it unchanged; the RoPE values under
the score chart are the payload's (r = 1, the window's edge, the rebound); each accuracy cell's
tooltip is the payload's mean [lo, hi] with the method; toggling a reader hides and shows its curve
and its accuracy band; the filing strip has one answer per token for each reader; the failure lab's menu
has every fault, each drawn per scheme with the invariants that caught it in its table; no horizontal
scroll at a phone's width. Screenshots at two window sizes go to --screenshots.

Usage: tests/lab_browser.py LAB_DIR [--screenshots DIR]
Exit 0 when every check holds, 1 with one line per failure, 77 (skipped, one line) where Chromium
or Selenium cannot start.
"""
import argparse
import json
import os
import sys
import time

SKIP = 77


def skip(why):
    print("lab_browser: skipped: " + why)
    sys.exit(SKIP)


def start_browser():
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError as e:
        skip("python3-selenium is not installed (%s); scripts/install-deps.sh installs it" % e)
    binary = next((p for p in ("/usr/bin/chromium", "/usr/bin/chromium-browser") if os.path.exists(p)), None)
    driver_path = next((p for p in ("/usr/bin/chromedriver",) if os.path.exists(p)), None)
    if not binary or not driver_path:
        skip("chromium or chromium-driver is not installed; scripts/install-deps.sh installs them")
    opts = webdriver.ChromeOptions()
    opts.binary_location = binary
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars"):
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    try:
        return webdriver.Chrome(service=Service(driver_path), options=opts)
    except Exception as e:  # noqa: BLE001 - any failure to start is a skip, said in one line
        skip("Chromium cannot start here (%s)" % str(e).splitlines()[0])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("lab_dir")
    ap.add_argument("--screenshots", default="")
    a = ap.parse_args()
    page = os.path.abspath(os.path.join(a.lab_dir, "index.html"))
    payload = json.load(open(os.path.join(a.lab_dir, "lab.json")))
    failures = []

    def check(ok, what):
        if not ok:
            failures.append(what)

    driver = start_browser()  # skips (exit 77) before the imports below can fail
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select
    try:
        driver.set_window_size(1400, 1000)
        t0 = time.time()
        driver.get("file://" + page)
        ready = driver.execute_script("return document.readyState")
        drawn = driver.execute_script("return performance.timing.loadEventEnd - performance.timing.navigationStart")
        print("lab_browser: page loaded and drawn in %d ms (wall %.2f s), state %s" % (drawn, time.time() - t0, ready))
        check(drawn < 5000, "the page took %d ms to load and draw (a laptop should need under a second)" % drawn)

        # the page's own embedded payload is the lab.json beside it
        embedded = json.loads(driver.execute_script("return document.getElementById('payload').textContent"))
        check(embedded == payload, "the payload inside index.html differs from lab.json")

        text = lambda i: driver.find_element(By.ID, i).text  # noqa: E731
        val = lambda i: int(driver.find_element(By.ID, i).get_attribute("value"))  # noqa: E731
        clock = payload["clock"]

        def readout_for(m, n, d=16, b=10000.0):
            k = next(k for k in clock["kernels"] if k["d"] == d and k["base"] == b)
            return "%.3f" % k["readout"][abs(n - m)]

        check(text("readout") == readout_for(3, 10), "readout at m = 3, n = 10 is %s, payload %s" % (text("readout"), readout_for(3, 10)))
        # keyboard: arrows move the sliders one position
        m_slider, n_slider = driver.find_element(By.ID, "m"), driver.find_element(By.ID, "n")
        m_slider.send_keys(Keys.ARROW_RIGHT, Keys.ARROW_RIGHT)
        check(val("m") == 5, "two right arrows on m should give 5, got %d" % val("m"))
        check(text("readout") == readout_for(5, 10), "readout at m = 5, n = 10 is %s, payload %s" % (text("readout"), readout_for(5, 10)))
        n_slider.send_keys(Keys.ARROW_RIGHT * 20)
        check(val("n") == 30, "twenty right arrows on n should give 30, got %d" % val("n"))
        check(text("readout") == readout_for(5, 30), "readout at m = 5, n = 30 is %s, payload %s" % (text("readout"), readout_for(5, 30)))
        # mouse: a click on the slider's track moves it there
        ActionChains(driver).move_to_element_with_offset(m_slider, m_slider.size["width"] // 4, 0).click().perform()
        m_now = val("m")
        check(m_now != 5, "a mouse click on the m slider's track did not move it")
        check(text("readout") == readout_for(m_now, 30), "after the click readout is %s, payload %s" % (text("readout"), readout_for(m_now, 30)))
        # lock the offset: moving either slider keeps the readout
        driver.find_element(By.ID, "lock").click()
        before, off = text("readout"), val("n") - val("m")
        m_slider.send_keys(Keys.ARROW_RIGHT * 3)
        check(val("n") - val("m") == off, "the locked offset moved (%d, was %d)" % (val("n") - val("m"), off))
        check(text("readout") == before, "with the offset locked the readout changed (%s, was %s)" % (text("readout"), before))
        n_slider.send_keys(Keys.ARROW_LEFT * 2)
        check(text("readout") == before, "with the offset locked, moving n changed the readout")
        driver.find_element(By.ID, "lock").click()
        # another width and base: the readout follows the payload's kernel
        Select(driver.find_element(By.ID, "dim")).select_by_value("64")
        check(text("readout") == readout_for(val("m"), val("n"), 64), "readout at d = 64 is %s, payload %s" % (text("readout"), readout_for(val("m"), val("n"), 64)))
        check(len(driver.find_elements(By.CSS_SELECTOR, "#clocks circle")) == 32, "d = 64 should draw 32 clocks")

        # the RoPE values under the score chart: the payload's seed-0 curve
        T = payload["scores"]["train_length"]
        rope = next(r for r in payload["scores"]["readers"] if r["reader"] == "rope" and r["seed"] == 0)["score_by_age"]
        deep = min(range(T, len(rope)), key=lambda r: (rope[r], r))
        top = max(range(deep + 1, len(rope)), key=lambda r: (rope[r], -r))
        want = ["%.2f at r = 1" % rope[1], "%.2f at the window's edge r = %d" % (rope[T - 1], T - 1),
                "rebounding to %.2f at r = %d" % (rope[top], top)]
        for w in want:
            check(w in text("rope-values"), "the RoPE values do not say %r: %r" % (w, text("rope-values")))
        # toggling a reader hides and shows its curve
        # the accuracy chart: a band per reader shown; each cell's tooltip is mean [lo, hi] and the method
        acc = payload["accuracy"]
        check(len(driver.find_elements(By.CSS_SELECTOR, "#accuracy path[data-band='rope']")) == 1, "the rope accuracy band is not drawn")
        rope_acc = next(r for r in acc["readers"] if r["reader"] == "rope")
        for i in range(len(acc["lengths"])):
            title = driver.find_element(By.CSS_SELECTOR, "#accuracy-table tr[data-reader='rope']").find_elements(By.TAG_NAME, "td")[i + 1].get_attribute("title")
            want = "%.3f [%.3f, %.3f]: 95%% interval on the logit scale over the %d seeds and the shared test set of %s sequences" % (
                rope_acc["mean"][i], rope_acc["lo"][i], rope_acc["hi"][i], len(rope_acc["seeds"]), format(acc["test_sequences"], ","))
            check(title.startswith(want), "the rope cell at %d says %r, not %r" % (acc["lengths"][i], title, want))
        sel = "#scores path[data-reader='rope']"
        check(len(driver.find_elements(By.CSS_SELECTOR, sel)) == 1, "the rope curve is not drawn")
        toggle = driver.find_element(By.CSS_SELECTOR, "input.reader-toggle[data-reader='rope']")
        toggle.click()
        check(len(driver.find_elements(By.CSS_SELECTOR, sel)) == 0, "unticking rope left its curve")
        check(len(driver.find_elements(By.CSS_SELECTOR, "#accuracy path[data-reader='rope']")) == 0, "unticking rope left its accuracy line")
        check(len(driver.find_elements(By.CSS_SELECTOR, "#accuracy path[data-band='rope']")) == 0, "unticking rope left its accuracy band")
        toggle.click()
        check(len(driver.find_elements(By.CSS_SELECTOR, sel)) == 1, "ticking rope again did not draw it")
        t5 = driver.find_element(By.CSS_SELECTOR, "input.reader-toggle[data-reader='t5']")
        t5.click()
        check(len(driver.find_elements(By.CSS_SELECTOR, "#scores path[data-reader='t5']")) == 1, "ticking t5 did not draw it")

        # the filing strip: one answer per token for each reader
        words = len(payload["filing"]["words"])
        Select(driver.find_element(By.ID, "filing-seed")).select_by_value("all")
        rows = driver.find_elements(By.CSS_SELECTOR, "#strip .strip-row")
        readers = [r for r in rows if r.get_attribute("data-reader") not in ("mentions", "right answer")]
        check(len(readers) == len(payload["filing"]["readers"]), "the strip has %d reader rows, the payload %d" % (len(readers), len(payload["filing"]["readers"])))
        counts = driver.execute_script("return [...document.querySelectorAll('#strip .strip-row')].map(r => r.querySelectorAll('.tok').length)")
        check(all(c == words for c in counts), "a strip row does not have one cell per token (%d): %s" % (words, sorted(set(counts))))
        Select(driver.find_element(By.ID, "filing-seed")).select_by_value("0")

        # the failure lab: one option per fault; each fault read on models draws a faulty and a correct curve
        # per scheme and a table row per scheme whose last cell names the invariants that caught it
        faults = payload["failures"]["faults"]
        options = driver.find_elements(By.CSS_SELECTOR, "#fault option")
        check(len(options) == len(faults), "the fault menu has %d entries, the payload %d faults" % (len(options), len(faults)))
        for i, f in enumerate(faults):
            Select(driver.find_element(By.ID, "fault")).select_by_value(str(i))
            for m in f["models"]:
                drawn = len(driver.find_elements(By.CSS_SELECTOR, "#failures path[data-reader='%s']" % m["scheme"]))
                check(drawn == 1, "fault %s: %d faulty curves of %s, expected 1" % (f["name"], drawn, m["scheme"]))
            cells = driver.execute_script("return [...document.querySelectorAll('#fault-table tr')].slice(1).map(r => r.lastElementChild.textContent)")
            check(len(cells) == len(f["models"]), "fault %s: %d table rows, %d models" % (f["name"], len(cells), len(f["models"])))
            for m, cell in zip(f["models"], cells):
                want = ", ".join(m["caught_by"]) or "none"
                check(cell.startswith(want), "fault %s on %s: the table says %r, the payload %r" % (f["name"], m["scheme"], cell, want))
        Select(driver.find_element(By.ID, "fault")).select_by_value("0")

        # no console error, no network request
        errors = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
        check(not errors, "console errors: %s" % [e.get("message") for e in errors][:3])
        urls = []
        for entry in driver.get_log("performance"):
            msg = json.loads(entry["message"])["message"]
            if msg.get("method") == "Network.requestWillBeSent":
                urls.append(msg["params"]["request"]["url"])
        remote = [u for u in urls if not u.startswith(("file:", "data:"))]
        check(not remote, "the page made network requests: %s" % remote[:3])

        # screenshots of the page as it opens, and the layout at a phone's width
        driver.get("file://" + page)
        if a.screenshots:
            os.makedirs(a.screenshots, exist_ok=True)
        for name, width in (("wide", 1400), ("phone", 390)):
            driver.set_window_size(width, 1000)
            height = driver.execute_script("return document.documentElement.scrollHeight")
            driver.set_window_size(width, height + 140)
            overflow = driver.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
            check(overflow <= 1, "at %d px the page scrolls sideways by %d px" % (width, overflow))
            if a.screenshots:
                path = os.path.join(a.screenshots, "screenshot-%s.png" % name)
                driver.save_screenshot(path)
                print("lab_browser: wrote %s (%d x %d)" % (path, width, height))
    except Exception as e:  # noqa: BLE001 - an element the test drives is missing: a failure, said in one line
        failures.append("the page lacks what the test drives (%s: %s)" % (type(e).__name__, str(e).splitlines()[0] if str(e) else ""))
    finally:
        driver.quit()
    for f in failures:
        print("lab_browser: FAIL: " + f)
    if not failures:
        print("lab_browser: every check holds")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
