#!/usr/bin/env bash
# Background evidence runs (resumable: rerun this script to resume; each command resumes its survey).
# Lane A: race-table grades of seeds 1..10000 under race, then standard (recorded with the player
#   --fast now keeps).
# Lane G: the same grades again with the hidden player's defaults (16 worlds of 10,000 positions):
#   race and standard side by side, one core each; then their unknown deals graded again at 600 s.
#   Then the seeds behind the double-solitaire pair pick (simultaneous-fr, 1..2000) graded the same way.
# Lane B: double-solitaire race surveys of 2,000 random pairs with careless players
#   (locked draw 3, open draw 1: what the issue asks; locked draw 1 on the first 1,000 pairs to set
#   open against locked at the same draw), then pairs picked from seeds 1..2000 (a 20-race check, then 60),
#   then hidden against careless players on pairs 1..100.
# Lane C: the Double Klondike table, 8 rule sets x seeds 1..10000, then its unknowns again.
# Lane D: Crapette under both readings of the waste rule, 10,000 rounds a setting: greedy and planner
#   against themselves (the first player's edge and stalemates), waste playable (the default) and not.
# Lane E: double-solitaire races again under the rules pages' ends (a seat emptied by the other's
#   move wins, blocked only when no seat can progress) with the open-race players: 2,000 random pairs
#   of careless players per variant (locked draw 3, open draw 1, milder draw 1), then the pair pick,
#   the picked pairs raced afresh and locked draw 1 over the first 1,000 pairs (all recorded with
#   --fast, the hidden-player settings they were begun with).
# Lane H: the hidden-information player's strength at its defaults, one play of each of seeds
#   1..10000 under standard (draw 3), then race (draw 1) (benchmarks/hidden_report.py, resumable).
# Commits data/ on the checkout's branch every 10 minutes (EVIDENCE_DIR: which checkout, default this
# one; LANES: which lanes, default AB). Run from a checkout with the core built: nohup setsid bash data/evidence.sh &
cd "${EVIDENCE_DIR:-$(dirname "$0")/..}"
export PYTHONPATH=src DSOLVE_PROGRESS_EVERY=120
commit() { git add data >/dev/null 2>&1; git commit -qm "Data: evidence runs so far ($1)" >/dev/null 2>&1; }
( while sleep 600; do commit "periodic"; done ) & LOOP=$!
trap 'kill $LOOP; commit "stopped"' EXIT TERM
D="nice python3 -m dsolve"
laneA() {
  for p in race standard; do
    $D pick --seeds 1-10000 --preset $p --fast --out data/picks/$p-1e4.parquet --jobs 1 >> /tmp/evidence-$p.log 2>&1
  done
}
laneG() {
  for p in race standard; do
    $D pick --seeds 1-10000 --preset $p --out data/picks/$p-1e4-default.parquet --jobs 1 >> /tmp/evidence-$p-default.log 2>&1 &
  done
  wait
  # deals whose solve ran out of time on loaded cores: graded again, then the lists written again
  for p in race standard; do
    $D survey --out data/picks/$p-1e4-default.parquet.grades --retry-unknown --timeout 600 --jobs 1 >> /tmp/evidence-$p-default.log 2>&1
    $D pick --seeds 1-10000 --preset $p --out data/picks/$p-1e4-default.parquet --jobs 1 >> /tmp/evidence-$p-default.log 2>&1
  done
  $D pick --seeds 1-2000 --preset simultaneous-fr --out data/picks/simultaneous-fr-2000-default.csv --jobs 2 >> /tmp/evidence-sfr-default.log 2>&1
}
laneB() {
  for v in "locked 3 2000" "open 1 2000" "locked 1 1000"; do set -- $v
    $D race survey --pairs 1-$3 --variant $1 --draw $2 --players careless --plays 20 --fast --out data/surveys/race-$1$2-careless --jobs 1 >> /tmp/evidence-races.log 2>&1
  done
  $D pick --seeds 1-2000 --preset simultaneous-fr --pairs --pair-players careless --pair-races 20 --fast --out data/picks/pairs-locked3.csv --jobs 1 >> /tmp/evidence-races.log 2>&1
  $D race survey --pairs-file data/picks/pairs-locked3.csv --sampling-seed 1 --variant locked --draw 3 --players careless --plays 20 --out data/surveys/race-picked-locked3-careless --jobs 1 >> /tmp/evidence-races.log 2>&1
  # the same pairs with a stricter race check (60 races a pair), from a copy of the same grades
  [ -d data/picks/pairs-locked3-60.csv.grades ] || cp -r data/picks/pairs-locked3.csv.grades data/picks/pairs-locked3-60.csv.grades
  $D pick --seeds 1-2000 --preset simultaneous-fr --pairs --pair-players careless --pair-races 60 --fast --out data/picks/pairs-locked3-60.csv --jobs 1 >> /tmp/evidence-races.log 2>&1
  rm -r data/picks/pairs-locked3-60.csv.grades   # the copy (rerunning the lane copies it again)
  $D race survey --pairs-file data/picks/pairs-locked3-60.csv --sampling-seed 1 --variant locked --draw 3 --players careless --plays 20 --out data/surveys/race-picked60-locked3-careless --jobs 1 >> /tmp/evidence-races.log 2>&1
  # do careful players see the decks as the careless ones do? pairs 1..100, 10 races each, both players
  for p in hidden careless; do
    $D race survey --pairs 1-100 --variant locked --draw 3 --players $p --plays 10 --fast --out data/surveys/race-locked3-$p-10 --jobs 1 >> /tmp/evidence-races.log 2>&1
  done
}
laneC() {
  R=; for d in 1 3; do for e in king any; do for f in 4 8; do
    R="$R --rules draw=$d,passes=unlimited,empty=$e,worry=yes,decks=2,foundations=$f"; done; done; done
  $D survey --seeds 1-10000 $R --out data/surveys/double-klondike-1e4 --timeout 10 --jobs 1 >> /tmp/evidence-dk.log 2>&1
  $D survey --out data/surveys/double-klondike-1e4 --retry-unknown --timeout 120 --jobs 1 >> /tmp/evidence-dk.log 2>&1
}
laneD() {
  for s in "greedy yes greedy-greedy-waste" "planner yes planner-planner-waste" "planner no planner-planner"; do set -- $s
    $D crapette survey --seeds 1-10000 --players $1 --rules waste_playable=$2 --out data/surveys/crapette-$3 --jobs 1 >> /tmp/evidence-crapette.log 2>&1
  done
}
laneH() {
  mkdir -p data/players
  for p in standard race; do
    R=data/players/hidden-$p-1e4
    nice python3 benchmarks/hidden_report.py --seeds 1-10000 --preset $p --out $R.jsonl --json > /tmp/hidden-$p.report.json 2>> /tmp/evidence-hidden.log && mv /tmp/hidden-$p.report.json $R.report.json
  done
}
laneE() {
  for v in "locked 3" "open 1" "milder 1"; do set -- $v
    $D race survey --pairs 1-2000 --variant $1 --draw $2 --players careless --plays 20 --fast --out data/surveys/races-$1$2-careless --jobs 1 >> /tmp/evidence-races.log 2>&1
  done
  # the seeds' grades do not depend on the race rules: start from a copy of the ones made before
  # (with the player --fast keeps)
  [ -d data/picks/pairs-locked3-ends.csv.grades ] || cp -r data/picks/pairs-locked3.csv.grades data/picks/pairs-locked3-ends.csv.grades
  $D pick --seeds 1-2000 --preset simultaneous-fr --pairs --pair-players careless --pair-races 60 --fast --out data/picks/pairs-locked3-ends.csv --jobs 1 >> /tmp/evidence-races.log 2>&1
  # the picked pairs raced afresh (another sampling seed), and locked draw 1 to set the open race against
  $D race survey --pairs-file data/picks/pairs-locked3-ends.csv --sampling-seed 1 --variant locked --draw 3 --players careless --plays 20 --fast --out data/surveys/races-picked60-locked3-careless --jobs 1 >> /tmp/evidence-races.log 2>&1
  $D race survey --pairs 1-1000 --variant locked --draw 1 --players careless --plays 20 --fast --out data/surveys/races-locked1-careless --jobs 1 >> /tmp/evidence-races.log 2>&1
}
lanes=${LANES:-AB} pids=()
[[ $lanes == *A* ]] && { laneA & pids+=($!); }
[[ $lanes == *B* ]] && { laneB & pids+=($!); }
[[ $lanes == *C* ]] && { laneC & pids+=($!); }
[[ $lanes == *D* ]] && { laneD & pids+=($!); }
[[ $lanes == *E* ]] && { laneE & pids+=($!); }
[[ $lanes == *G* ]] && { laneG & pids+=($!); }
[[ $lanes == *H* ]] && { laneH & pids+=($!); }
wait "${pids[@]}"          # then the EXIT trap stops the periodic commits and commits the rest
