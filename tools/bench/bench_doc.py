# SPDX-License-Identifier: GPL-2.0-only
# bench_doc.py: the shape of docs/BENCHMARKS.md, read and written: a scenario's
# tables kept per host kind, a run merged in by host kind and scenario number.
"""docs/BENCHMARKS.md as bench.py writes it:

    # ringtrace benchmarks
    HEAD (a short description, rewritten at each run)
    ## Headline by host kind
    ### <host kind>                 one per host kind
    - scenario N (DATE): ...        one per scenario measured there
    ## N. Title                     one per scenario, in number order
    intro (the newest run's)
    ### <host kind>                 one per host kind the scenario was measured on:
    Run: ... / Machine: ...         when, by what command, at which commit, on what
    table, verdicts                 the bench's output
    ### Where the time goes         written by hand, never by the bench: kept
    ## other sections               written by hand (or by make soak): kept, at the end

A host kind is the CPU's vendor and family and the clocksource, e.g. "AMD EPYC,
clocksource tsc": what moves a tracer's per-event cost most between this project's
machines. A run on a host kind replaces that kind's subsection of each scenario
it ran and its headline lines of those scenarios, and leaves everything else."""

import datetime
import re
import subprocess

TITLE = "# ringtrace benchmarks"
HEAD = (
    "Written by `make bench` (as root, not part of `make test`; `python3 tools/bench/bench.py "
    "--only N` for scenario N alone), which runs ringtrace, perf record and bpftrace on the same workloads in one run, each "
    "tool several times (5 unless the command says `--reps`) in alternating order; tables "
    "give medians and spreads (min-max). Each scenario keeps one table per host kind it was "
    "measured on (CPU family and clocksource: the project's machines change between "
    "sessions), each with its date, command, commit and machine (CPU, clocksource, the bare "
    "getpid's cost when the run began, kernel); a run on a host kind replaces that kind's "
    "tables of the scenarios it ran and keeps the others. What is written by hand is in each "
    "scenario's \"Where the time goes\" and in the sections after the scenarios. Absolute "
    "times on these shared VMs are noise: read the ratios, and compare figures of one host "
    "kind only.")
HEADLINES = "Headline by host kind"
HEADLINES_INTRO = ("The newest figures of each scenario on each host kind; the tables, "
                   "commands and machines are in the scenario's subsection of that host kind.")
HOST = re.compile(r"^(.+), clocksource (\S+)$")
SCENARIO = re.compile(r"^(\d+)\. ")
HEADLINE_LINE = re.compile(r"^- scenario (\d+) ")


def cpu_family(model):
    """The vendor and family of a /proc/cpuinfo model name: "Intel(R) Xeon(R)
    Platinum 8375C CPU @ 2.90GHz" -> "Intel Xeon", "AMD EPYC 7B13 64-Core
    Processor" -> "AMD EPYC"."""
    words = re.sub(r"\((R|TM)\)", " ", model, flags=re.I).split("@")[0].split()
    words = [w for w in words if w.upper() not in ("CPU", "PROCESSOR")]
    return " ".join(words[:2]) or "unknown CPU"


def host_kind(model, clocksource):
    return "%s, clocksource %s" % (cpu_family(model), clocksource)


def commit(repo):
    """git rev-parse --short HEAD of repo, and whether files other than
    docs/BENCHMARKS.md differ from it (the run measured what is not committed)."""
    try:
        head = subprocess.run(["git", "-C", repo, "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", repo, "diff", "--quiet", "HEAD", "--", ".",
                                ":!docs/BENCHMARKS.md"]).returncode != 0
    except (OSError, subprocess.CalledProcessError):
        return "unknown commit"
    return head + (" with uncommitted changes" if dirty else "")


def machine_line(pairs):
    """bench.py's (name, value) pairs of the machine, as one line."""
    parts = []
    for name, value in pairs:
        if name == "machine" or value.startswith(name):  # "ringtrace 0.1.0", "perf version ..."
            parts.append(value)
        elif name == "bare syscall":
            parts.append("bare " + value)
        else:
            parts.append("%s %s" % (name, value))
    return "Machine: " + "; ".join(parts) + "."


class Section:
    """A scenario as a run wrote it: "N. Title", the intro, the body (table,
    verdicts, notes), and when it ran (UTC)."""

    def __init__(self, title, intro, body, started, finished):
        self.title, self.intro, self.body = title, intro, body.rstrip("\n")
        self.started, self.finished = started, finished
        self.number = int(SCENARIO.match(title).group(1))

    def text(self, run):
        """The host kind's subsection of this section, run being the Run it was part of."""
        same_day = self.started.date() == self.finished.date()
        when = "%s, %s-%s UTC" % (self.started.date().isoformat(), self.started.strftime("%H:%M"),
                                  self.finished.strftime("%H:%M") if same_day
                                  else self.finished.strftime("%Y-%m-%d %H:%M"))
        return ("Run: `%s` on %s, at %s.\n\n%s\n\n%s"
                % (run.command, when, run.commit, run.machine, self.body))


class Run:
    def __init__(self, kind, command, commit, machine):
        self.kind, self.command, self.commit, self.machine = kind, command, commit, machine


class Scenario:
    def __init__(self, number, title, intro):
        self.number, self.title, self.intro = number, title, intro
        self.hosts = []  # [host kind, its subsection's text (without the heading)]
        self.kept = []   # other subsections (Where the time goes), heading included


class Document:
    def __init__(self):
        self.headlines = []  # [host kind, [lines]]
        self.scenarios = []
        self.tail = []       # sections that are not scenarios, heading included


def blocks(text, mark):
    """text cut before each line starting with mark (outside ``` fences): the
    part before the first, then each block from its heading line on."""
    out, cur, fenced = [], [], False
    for line in text.split("\n"):
        if line.startswith("```"):
            fenced = not fenced
        if not fenced and line.startswith(mark):
            out.append("\n".join(cur))
            cur = []
        cur.append(line)
    out.append("\n".join(cur))
    return out[0], out[1:]


def heading(block):
    first, _, rest = block.partition("\n")
    return first.split(" ", 1)[1].strip(), rest.strip("\n")


def parse(text):
    doc = Document()
    _, sections = blocks(text, "## ")
    for sec in sections:
        title, body = heading(sec)
        m = SCENARIO.match(title)
        if title == HEADLINES:
            _, subs = blocks(body, "### ")
            for sub in subs:
                kind, lines = heading(sub)
                doc.headlines.append([kind, [l for l in lines.split("\n") if l.strip()]])
        elif m:
            intro, subs = blocks(body, "### ")
            s = Scenario(int(m.group(1)), title, intro.strip("\n"))
            for sub in subs:
                name, rest = heading(sub)
                if HOST.match(name):
                    s.hosts.append([name, rest])
                else:
                    s.kept.append(sub.strip("\n"))
            doc.scenarios.append(s)
        else:
            doc.tail.append(sec.strip("\n"))
    return doc


def render(doc):
    out = [TITLE, "", HEAD, "", "## " + HEADLINES, "", HEADLINES_INTRO, ""]
    for kind, lines in doc.headlines:
        out += ["### " + kind, ""] + lines + [""]
    for s in doc.scenarios:
        out += ["## " + s.title, ""] + ([s.intro, ""] if s.intro else [])
        for kind, text in s.hosts:
            out += ["### " + kind, "", text, ""]
        for sub in s.kept:
            out += [sub, ""]
    for sec in doc.tail:
        out += [sec, ""]
    return "\n".join(out).rstrip("\n") + "\n"


def goals(body):
    """'goals met: X of Y' from a body's verdict lines and verdict table rows."""
    results = re.findall(r"(?m)(?:: |\| )(PASS|FAIL)(?: \|)?$", body)
    if not results:
        return ""
    return "goals met: %d of %d" % (results.count("PASS"), len(results))


def headline(section, text):
    """A scenario's headline line: text (bench.py's summary of it) and its goals'
    count; without a text, its verdict lines, or else the first note under its table."""
    notes = [l[2:] for l in section.body.split("\n") if l.startswith("- ")]
    verdicts = [l for l in notes if l.endswith((": PASS", ": FAIL"))]
    if text:
        text = "; ".join(t for t in (text, goals(section.body)) if t)
    else:
        text = "; ".join(verdicts) or (notes[0] if notes else "measured")
    return "- scenario %d (%s): %s" % (section.number, section.finished.date().isoformat(), text)


def merge(doc, run, sections, headlines):
    """Puts run's sections into doc: each replaces its scenario's subsection of
    run.kind (or is added after the others' subsections), the scenario's title
    and intro become the run's; headlines ({number: text}) replace run.kind's
    headline lines of those scenarios. Other host kinds, other scenarios and
    the subsections written by hand are left as they are."""
    for sec in sections:
        s = next((x for x in doc.scenarios if x.number == sec.number), None)
        if s is None:
            s = Scenario(sec.number, sec.title, sec.intro)
            at = sum(1 for x in doc.scenarios if x.number < sec.number)
            doc.scenarios.insert(at, s)
        s.title, s.intro = sec.title, sec.intro
        text = sec.text(run)
        host = next((h for h in s.hosts if h[0] == run.kind), None)
        if host:
            host[1] = text
        else:
            s.hosts.append([run.kind, text])
    if not sections:
        return doc
    entry = next((h for h in doc.headlines if h[0] == run.kind), None)
    if entry is None:
        entry = [run.kind, []]
        doc.headlines.append(entry)
    numbers = {sec.number for sec in sections}

    def number(line):
        m = HEADLINE_LINE.match(line)
        return int(m.group(1)) if m else None
    kept = [l for l in entry[1] if number(l) not in numbers]
    new = [headline(sec, headlines.get(sec.number, "")) for sec in sections]
    ordered = sorted((l for l in kept + new if number(l) is not None), key=number)
    entry[1] = ordered + [l for l in kept if number(l) is None]
    return doc


def now():
    return datetime.datetime.now(datetime.timezone.utc)
