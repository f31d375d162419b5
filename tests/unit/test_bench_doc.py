#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# test_bench_doc.py: docs/BENCHMARKS.md's merge by host kind (tools/bench/bench_doc.py)
# on made-up runs: another host's tables kept, the same host's replaced, the
# hand-written subsections and the scenarios not run left alone. No root, no run.
import datetime
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "bench"))
import bench_doc  # noqa: E402

AMD = bench_doc.host_kind("AMD EPYC 7B13 64-Core Processor", "tsc")
INTEL = bench_doc.host_kind("Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz", "kvm-clock")
T0 = datetime.datetime(2026, 12, 3, 10, 0, tzinfo=datetime.timezone.utc)


def run(kind, commit="abc1234"):
    return bench_doc.Run(kind, "tools/bench/bench.py --only 1", commit,
                         "Machine: %s, 2 CPUs; bare getpid 400 ns." % kind)


def section(number, figure, verdict="PASS"):
    """Scenario number's output with figure in its table and one verdict."""
    body = ("| tool | ns |\n|---|---|\n| ringtrace | %s |\n\n- ringtrace, added cost: %s (goal <= 9): %s"
            % (figure, figure, verdict))
    return bench_doc.Section("%d. Scenario %d" % (number, number), "What scenario %d does." % number,
                             body, T0, T0 + datetime.timedelta(minutes=number))


def merged(text, kind, sections, headlines=None, commit="abc1234"):
    doc = bench_doc.parse(text)
    bench_doc.merge(doc, run(kind, commit), sections, headlines or {})
    return bench_doc.render(doc)


def subsection(text, number, kind):
    """The text of scenario number's subsection of host kind, or None."""
    doc = bench_doc.parse(text)
    s = next(s for s in doc.scenarios if s.number == number)
    return next((t for k, t in s.hosts if k == kind), None)


WHERE = "### Where the time goes\n\nThe clock read is 78 ns of it (AMD EPYC, tsc), written by hand."
HAND = "## make soak (written by hand)\n\nIt runs ten minutes."


class HostKind(unittest.TestCase):
    def test_family_and_clocksource(self):
        self.assertEqual(AMD, "AMD EPYC, clocksource tsc")
        self.assertEqual(INTEL, "Intel Xeon, clocksource kvm-clock")
        self.assertEqual(bench_doc.host_kind("AMD EPYC", "tsc"), AMD)


class Merge(unittest.TestCase):
    def setUp(self):
        # a document with scenarios 1 and 2 measured on the AMD host, scenario 1
        # with a hand-written subsection, and a section written by hand at the end
        doc = bench_doc.parse("")
        bench_doc.merge(doc, run(AMD), [section(1, 111), section(2, 222)], {1: "one on AMD"})
        text = bench_doc.render(doc)
        self.base = text.replace("## 2. Scenario 2", WHERE + "\n\n## 2. Scenario 2") + "\n" + HAND + "\n"
        self.assertIn(AMD, bench_doc.parse(self.base).headlines[0][0])

    def test_other_host_keeps_the_first_hosts_table(self):
        text = merged(self.base, INTEL, [section(1, 999)], {1: "one on Intel"})
        self.assertIn("| ringtrace | 111 |", subsection(text, 1, AMD))
        self.assertIn("| ringtrace | 999 |", subsection(text, 1, INTEL))
        self.assertNotIn("999", subsection(text, 1, AMD))
        # the new host's subsection after the first's, both before the hand-written one
        self.assertLess(text.index("### " + AMD), text.index("### " + INTEL, text.index("## 1.")))
        self.assertLess(text.index("### " + INTEL, text.index("## 1.")), text.index(WHERE))
        heads = dict((k, lines) for k, lines in bench_doc.parse(text).headlines)
        self.assertEqual(sorted(heads), sorted([AMD, INTEL]))
        self.assertTrue(any("one on AMD" in line for line in heads[AMD]))
        self.assertTrue(any("one on Intel" in line for line in heads[INTEL]))

    def test_same_host_replaces_its_table(self):
        text = merged(self.base, AMD, [section(1, 333, "FAIL")], {1: "one again"}, commit="def5678")
        amd = subsection(text, 1, AMD)
        self.assertIn("| ringtrace | 333 |", amd)
        self.assertIn("def5678", amd)
        self.assertIn(": FAIL", amd)
        self.assertNotIn("111", text)
        self.assertEqual(text.count("### " + AMD), 3)  # the headline's, scenario 1's and 2's
        lines = bench_doc.parse(text).headlines[0][1]
        self.assertEqual([line.split(" (")[0] for line in lines], ["- scenario 1", "- scenario 2"])
        self.assertIn("one again; goals met: 0 of 1", lines[0])
        self.assertIn("ringtrace, added cost: 222 (goal <= 9): PASS", lines[1])  # no text: its verdicts

    def test_where_the_time_goes_kept(self):
        for kind in (AMD, INTEL):
            text = merged(self.base, kind, [section(1, 444), section(2, 555)])
            self.assertEqual(text.count(WHERE), 1)
            # in its scenario, after the tables
            self.assertLess(text.rindex("| ringtrace | 444 |"), text.index(WHERE))
            self.assertLess(text.index(WHERE), text.index("## 2. Scenario 2"))
            self.assertTrue(text.rstrip("\n").endswith(HAND))

    def test_only_leaves_other_scenarios_untouched(self):
        text = merged(self.base, AMD, [section(2, 666)])
        one = self.base[self.base.index("## 1."):self.base.index("## 2.")]
        self.assertIn(one, text)
        self.assertIn("| ringtrace | 666 |", subsection(text, 2, AMD))
        self.assertNotIn("222", text)
        # a scenario not in the document goes in number order, before the hand-written end
        text = merged(text, INTEL, [section(12, 777)])
        self.assertLess(text.index("## 2. Scenario 2"), text.index("## 12. Scenario 12"))
        self.assertLess(text.index("## 12. Scenario 12"), text.index(HAND))
        self.assertIn(one, text)

    def test_render_of_parse_is_the_same(self):
        self.assertEqual(bench_doc.render(bench_doc.parse(self.base)), self.base)


if __name__ == "__main__":
    unittest.main()
