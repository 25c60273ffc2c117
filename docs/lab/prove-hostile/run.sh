#!/bin/bash
# issue 74's hostile list (vier prove), rerun against $VIER (default: the test profile's
# target/debug/vier, built by `cargo test --features prove --test prove`). Linux: /proc, pgrep.
V=${VIER:-$(pwd)/target/debug/vier}
T=${TMPDIR:-/tmp}/vier-hostile; rm -rf $T; mkdir -p $T; cd $T
peak() { grep VmHWM /proc/$1/status 2>/dev/null | awk '{print $2" kB"}'; }
echo "== 1 forged certificate"
printf '# vier prove certificate 2\nsize 5x4\nroot -\ngoal weak\nvalue -1\n- node -1 -1\n1 node -2147483648 -2147483647\n2 node -2147483648 2147483647\n3 node -2147483648 2147483647\n11 node -2147483648 2147483647\n12 node -2147483648 2147483647\n13 node -2147483648 2147483647\n14 node -2147483648 2147483647\n15 node -2147483648 2147483647\n' > forged
$V prove --verify --certificate forged | head -3; echo "exit ${PIPESTATUS[0]}"
echo "== 2 runner floods (peak memory after 3 s, then SIGTERM: time to end all)"
for r in "cat /dev/zero" "yes -- '- >=0 1 1'" "yes junk"; do
  rm -rf s; $V prove - --size 6x4 --state s --budget-nodes 4096 --jobs 2 --runner "$r" 2>/dev/null & p=$!
  sleep 3; m=$(peak $p); kids=$(pgrep -P $p | wc -l); s=$(date +%s%N); kill -TERM $p; wait $p; e=$(( ($(date +%s%N)-s)/1000000 ))
  sleep 0.3; echo "$r: peak $m, front end ended in $e ms, children before $kids, left $(pgrep -f "$r" | wc -l)"
done
echo "== 3 state files"
rm -rf s; $V prove - --size 5x4 --state s --budget-nodes 4096 --hash 1 --jobs 2 >/dev/null 2>&1
rm -f s/results/000001.out; ln -s /dev/zero s/results/000001.out
/usr/bin/time -f "result -> /dev/zero: %M kB, %e s" $V prove --state s 2>&1 | grep -E "kB|damaged|error" | head -3
rm -f s/results/000001.out*; mkfifo s/results/000001.out
/usr/bin/time -f "result FIFO: %M kB, %e s" timeout 20 $V prove --state s 2>&1 | grep -E "kB|damaged|error" | head -3
rm -f s/results/000001.out*; head -c 300000000 /dev/urandom > s/results/000001.out
/usr/bin/time -f "300 MB result: %M kB, %e s" $V prove --state s 2>&1 | grep -E "kB|damaged|error" | head -3
head -c 30000000 /dev/zero | tr '\0' '1' | fold -w 3 > s/expanded
/usr/bin/time -f "30 MB expanded: %M kB, %e s" $V prove --state s 2>&1 | grep -E "kB|expanded|error" | head -3
rm s/expanded; head -c 300000000 /dev/zero >> s/proof
/usr/bin/time -f "proof + 300 MB: %M kB, %e s" $V prove --state s 2>&1 | grep -E "kB|error" | head -3
echo "== 4 sbatch /bin/false"
rm -rf s; s0=$(date +%s); $V prove - --size 4x4 --state s --slurm --sbatch /bin/false 2>&1 | tail -1; echo "in $(( $(date +%s)-s0 )) s, $(ls s/slurm | wc -l) wave folders"
echo "== 5 letters"
rm -rf s; $V prove abc --size 10x4 --state s --split 1 --hash 1 --jobs 2 2>/dev/null; echo "exit $?"
rm -rf s; $V prove ABCDEFG --size 12x4 --state s --split 0 --hash 1 --jobs 2 2>/dev/null; echo "exit $?"
echo "== 6 split 100"
rm -rf s; $V prove - --size 6x4 --state s --split 100 2>&1 | tail -1; echo "exit $?, folder: $(ls -d s 2>/dev/null)"
echo "== 8 signals and kill -9 (local jobs of a vier that never answers)"
printf '#!/bin/sh\nexec sleep 600\n' > never; chmod +x never
for sig in TERM INT HUP KILL; do
  rm -rf s; $V prove - --size 6x4 --state s --jobs 2 --vier $T/never 2>/dev/null & p=$!
  sleep 1.5; before=$(pgrep -f "sleep 600" | wc -l); s=$(date +%s%N); kill -$sig $p; wait $p 2>/dev/null
  while pgrep -f "sleep 600" >/dev/null && [ $(( ($(date +%s%N)-s)/1000000 )) -lt 5000 ]; do sleep 0.01; done
  echo "SIG$sig: $before jobs, all gone in $(( ($(date +%s%N)-s)/1000000 )) ms, left $(pgrep -f 'sleep 600' | wc -l)"
done
echo "== 9 a runner that hangs (cat)"
rm -rf s; s0=$(date +%s); timeout 120 $V prove - --size 4x4 --state s --budget-nodes 4096 --runner cat 2>&1 | grep -E "past its time|error" | head -6; echo "in $(( $(date +%s)-s0 )) s"
echo "== 10 verify through a runner that flips answers"
rm -rf s; $V prove - --size 5x4 --state s --budget-nodes 4096 --hash 1 --jobs 2 >/dev/null 2>&1
cat > flip <<'F'
#!/bin/sh
while IFS= read -r l; do sh -c "$l" | sed 's/ 0 \([0-9]* [0-9]*\)$/ -1 \1/; s/>=0/<=-1/'; done
F
chmod +x flip
$V prove --verify --state s --runner "$T/flip" 2>/dev/null | tail -1
$V prove --verify --state s 2>/dev/null | tail -1
