#!/usr/bin/env bash
# demo.sh - the talk's live demonstration (docs/talk.md), scripted so that it runs the same way
# every time, in a terminal, with nothing to type:
#
#   1. a short game in the terminal: `vier play`, its moves typed by a small driver (and a `h`int);
#   2. an analysis: every column's value through the protocol (`MultiPV 7`, `go movetime`), and
#      the exact solver's `vier solve --all` on the same position;
#   3. the browser front end, if asked (--gui): `vier gui --no-open` prints its address, which
#      you open yourself; Enter (or --gui-seconds) ends it;
#   4. a short match with the referee: vier at 100 ms against vier at 10 ms, and against
#      Fairy-Stockfish at equal time when it is installed.
#
# Usage: tools/demo.sh [--bin PATH] [--gui] [--gui-seconds N] [--record DIR] [--pause]
#   --record DIR  also write each part's transcript to DIR (play.txt, analysis.txt, match.txt);
#                 `tools/demo.sh --record docs/demo` regenerates the committed transcripts
#   --pause       wait for Enter between the parts (for the live talk)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$root/target/release/vier
gui=false
gui_seconds=
record=
pause=false
while [ $# -gt 0 ]; do
    case $1 in
        --bin) bin=$2; shift 2 ;;
        --gui) gui=true; shift ;;
        --gui-seconds) gui=true; gui_seconds=$2; shift 2 ;;
        --record) record=$2; shift 2 ;;
        --pause) pause=true; shift ;;
        -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "demo.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
if [ ! -x "$bin" ]; then
    echo "demo.sh: no engine at $bin: cargo build --release (or give --bin)" >&2
    exit 2
fi
if [ -n "$record" ]; then
    mkdir -p "$record"
fi
fsf=$(command -v fairy-stockfish || command -v /usr/games/fairy-stockfish || true)

# prints a part's heading; with --pause waits for Enter first
part() {
    if $pause; then
        read -r -p "-- Enter: $1 " _ </dev/tty || true
    fi
    printf '\n\033[1m== %s\033[0m\n\n' "$1"
}

# runs "$@" showing its output, and with --record also saving it to $record/$out
show() {
    local out=$1
    shift
    if [ -n "$record" ]; then
        "$@" | tee "$record/$out"
    else
        "$@"
    fi
}

part "1. A game in the terminal: vier play (vier thinks 300 ms a move)"
play_game() {
    # The driver answers vier's prompts: the columns below in turn (a full one is refused by
    # vier and the next is typed), a hint before the fifth move, and no second game.
    python3 - "$bin" <<'EOF'
import subprocess, sys
cols = ["4", "3", "3", "5", "h", "2", "6", "2", "1", "7", "5", "6", "1", "7", "2", "6", "1", "7"]
p = subprocess.Popen([sys.argv[1], "play", "--movetime", "300"], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=0)
seen = ""
while True:
    ch = p.stdout.read(1)
    if not ch:
        break
    sys.stdout.write(ch)
    sys.stdout.flush()
    seen = (seen + ch)[-40:]
    if seen.endswith("your move: "):
        answer = cols.pop(0) if cols else "q"
    elif seen.endswith("[y/n] "):
        answer = "n"
    else:
        continue
    p.stdin.write(answer + "\n")
    p.stdin.flush()
p.wait()
EOF
}
show play.txt play_game

part "2. An analysis: the value of every column, by the search and by the exact solver"
analyse() {
    local moves=56567243231755
    echo "\$ vier   (the protocol; MultiPV 7: every column, 1000 ms)"
    {
        printf 'uci\nsetoption name MultiPV value 7\nposition startpos moves %s\nd\nisready\n' "$moves"
        printf 'go movetime 1000\n'
        sleep 1.5
        printf 'quit\n'
    } | "$bin" | grep -v '^option name' | sed 's/^/< /'
    echo
    echo "\$ echo $moves | vier solve --all     # moves, the score of columns 1-7, nodes, µs"
    echo "$moves" | "$bin" solve --all
}
show analysis.txt analyse

if $gui; then
    part "3. The browser front end: vier gui"
    "$bin" gui --no-open &
    gui_pid=$!
    sleep 1
    echo "(open the address above in a browser: play, ask for the analysis)"
    if [ -n "$gui_seconds" ]; then
        sleep "$gui_seconds"
    else
        read -r -p "Enter ends the server " _ </dev/tty || true
    fi
    kill "$gui_pid" 2>/dev/null || true
    wait "$gui_pid" 2>/dev/null || true
fi

part "4. A match with the referee"
match() {
    local tmp
    tmp=$(mktemp -d)
    echo "\$ python3 tools/referee.py --engine vier --name vier-100ms --tc movetime=100 \\"
    echo "      --engine vier --name vier-10ms --tc movetime=10 --games 8 --openings tools/openings.txt"
    python3 "$root/tools/referee.py" --engine "$bin" --name vier-100ms --tc movetime=100 \
        --engine "$bin" --name vier-10ms --tc movetime=10 --games 8 \
        --openings "$root/tools/openings.txt" --out "$tmp/self.jsonl" 2>/dev/null
    if [ -n "$fsf" ]; then
        echo
        echo "\$ python3 tools/referee.py --engine vier --name vier --tc movetime=100 \\"
        echo "      --engine 'fairy-stockfish load tools/fairy-stockfish/cfour.ini' --name fairy-stockfish \\"
        echo "      --tc movetime=100 --games 4 --openings tools/openings.txt"
        python3 "$root/tools/referee.py" --engine "$bin" --name vier --tc movetime=100 \
            --engine "$fsf load $root/tools/fairy-stockfish/cfour.ini" --name fairy-stockfish \
            --tc movetime=100 --games 4 --openings "$root/tools/openings.txt" \
            --out "$tmp/fsf.jsonl" 2>/dev/null
    fi
    rm -rf "$tmp"
}
show match.txt match
