#!/bin/sh
# bench/peers/run.sh OZZ_SRC [BUILD_DIR] [RIG19]
#
# cna and ozz-animation side by side, on the same machine in the same run, as ratios.
#
# OZZ_SRC is a source tree of ozz-animation (https://github.com/guillaumeblanc/ozz-animation;
# the figures in docs/benchmarks.md were measured at tag 0.16.0, commit 6cbdc790), which
# the script never copies into this repository. It needs cmake, ninja and a C++17 compiler
# (g++ or clang++), plus taskset (util-linux). Get it with, for example:
#   git clone --depth 1 --branch 0.16.0 https://github.com/guillaumeblanc/ozz-animation /tmp/ozz-src
#   bench/peers/run.sh /tmp/ozz-src
#
# What it does, everything under BUILD_DIR (default build-peers; ozz is built in
# BUILD_DIR/peers, never in OZZ_SRC):
#   1. builds cna's benchmarks and `cna` (RelWithDebInfo, as bench/run-all.sh; cna picks
#      its SIMD kernels at run time) and ozz with its Release flags plus -mavx2 -mfma
#      (ozz_animation, ozz_geometry and gltf2ozz; no samples, tests or FBX);
#   2. compiles bench/peers/ozz_driver.cpp (our own code against ozz's public API: a
#      SamplingJob with its Context and a LocalToModelJob per character, then the skin
#      palette; SkinningJob for 4 influences, positions + normals) and
#      bench/peers/skinning_pair.cpp (cna's and ozz's CPU skinning in one process, sweeps
#      alternating, each side's fastest kept) and bench/peers/player_pair.cpp (the same for the
#      players: cna exact and fast, one by one and in lanes, beside ozz) with the same flags;
#   3. converts the models with ozz's gltf2ozz (its defaults: keyframe optimisation at
#      1 mm tolerance, 10 cm distance) and with `cna convert --reduce-keys 0.001` for the
#      "keys reduced" rows: RobotExpressive (tests/data/corpus, 43 joints; ozz makes every
#      one of its 58 nodes a joint), a 19-joint rig, CesiumMan (RIG19, default
#      OZZ_SRC/media/gltf/khronos/cesium_man.gltf, a Khronos sample ozz ships), and a rig of
#      150 joints, the project's assets/Tentacle (its Wave clip; for cna converted with
#      `cna convert --split-palettes`, every key kept, since a skin of more than 72 joints
#      imports only with split palettes);
#   4. runs each workload REPS times (default 7), cna then ozz, alternating, pinned to one
#      core (taskset -c CORE, default 1; the 2-thread crowd on CROWD_CORES, default 0,1),
#      and prints per workload the median over the repetitions of each side's figure (itself
#      the median of 5 runs of SECONDS seconds, default 0.2) and the ratio cna / ozz
#      (below 1: cna is faster).
# Workloads: the player (sampling, local-to-model / world, skin palette) for 1 and 1000
# characters of Robot_Walking, the 19-joint rig and the 150-joint rig (`cna bench --player-only`: the 1000 one
# at a time with cna_player_update, and "1000-lanes" by one cna_crowd_update on a one-thread
# crowd, which samples runs of players of one clip in vector lanes; ozz: one at a time), in the
# exact sampling and, in the "-fast" rows of RobotExpressive and the 19-joint rig, in
# CNA_SAMPLING_FAST (`--sampling fast`: normalised lerps between close keys, as ozz always
# interpolates; every key kept); a crowd
# of 1000 Robot_Walking characters on 2 threads (`bench_player --crowd-only`, cna_crowd; ozz:
# the driver's 2 threads, chunks of 16 from a shared counter, as cna_crowd); CPU skinning
# of RobotExpressive's 19 parts, 4 influences, positions + normals, in ns per vertex
# (`bench_skinning --json`; ozz: the same part sizes and joint spread): cna_skin_vertices_fast
# (interleaved 52-byte vertices in and out), cna_skin_streams (into packed position and
# normal arrays, as SkinningJob writes them) renormalising, and not renormalising (the work
# SkinningJob does), each against the same ozz figure.
# IK (bench/peers/ozz_ik.cpp, one process, the sides alternating run by run, pinned to CORE):
# RobotExpressive's left arm, cna_ik_two_bone_solve beside IKTwoBoneJob, cna_ik_aim_solve beside
# IKAimJob, and cna_character_two_bone_ik (solve, apply, the arm's subtree and palette) beside
# IKTwoBoneJob + the corrections + LocalToModelJob from the shoulder; it needs ozz's offline
# library (its SkeletonBuilder makes the robot's skeleton). When the ozz tree has no IK jobs
# (before 0.11) or that part does not build, the script says so and skips it; the rest runs.
# Environment: REPS, RUN_SECONDS, CORE, CROWD_CORES override the defaults above; RIG19_CLIP
# names the rig's clip (default animation_0).
# Not part of CI: no test runs it. Check it with `sh -n bench/peers/run.sh`.
set -eu

if [ $# -lt 1 ] || [ ! -f "$1/include/ozz/animation/runtime/sampling_job.h" ]; then
    echo "usage: $0 OZZ_SRC [BUILD_DIR] [RIG19]" >&2
    echo "  OZZ_SRC: an ozz-animation source tree (https://github.com/guillaumeblanc/ozz-animation)" >&2
    exit 2
fi
OZZ_SRC=$(cd "$1" && pwd)
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
B=${2:-build-peers}
RIG19=${3:-$OZZ_SRC/media/gltf/khronos/cesium_man.gltf}
REPS=${REPS:-7}
SECONDS_PER_RUN=${RUN_SECONDS:-0.2}
CORE=${CORE:-1}
CROWD_CORES=${CROWD_CORES:-0,1}
RIG19_CLIP=${RIG19_CLIP:-animation_0}  # CesiumMan's one animation has no name: cna and gltf2ozz both say animation_0
ROBOT=$ROOT/tests/data/corpus/valid/RobotExpressive/robot.glb
RIG150=$ROOT/assets/Tentacle/tentacle.gltf
FLAGS="-O3 -DNDEBUG -mavx2 -mfma"
[ -f "$RIG19" ] || { echo "error: $RIG19: no such file (the 19-joint rig)" >&2; exit 1; }

echo "== building cna in $B"
cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCNA_BUILD_TESTS=OFF >/dev/null
cmake --build "$B" --target bench_player bench_skinning cna_tool >/dev/null
W=$(cd "$B" && pwd)/peers
mkdir -p "$W/data"
echo "== building ozz-animation ($OZZ_SRC) in $W/ozz-build"
cmake -S "$OZZ_SRC" -B "$W/ozz-build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_FLAGS="-mavx2 -mfma" -DCMAKE_C_FLAGS="-mavx2 -mfma" \
    -Dozz_build_samples=OFF -Dozz_build_howtos=OFF -Dozz_build_tests=OFF -Dozz_build_fbx=OFF \
    -Dozz_build_gltf=ON -Dozz_build_tools=ON >"$W/ozz-configure.log" 2>&1 ||
    { cat "$W/ozz-configure.log" >&2; exit 1; }
cmake --build "$W/ozz-build" --target gltf2ozz ozz_animation ozz_geometry ozz_base >/dev/null
# lib NAME: ozz's static library NAME (ozz adds _r to Release builds; not NAME_offline for NAME)
lib() { find "$W/ozz-build/src" \( -name "lib$1.a" -o -name "lib$1_r.a" \) | head -n 1; }
${CXX:-c++} -std=c++17 $FLAGS -I"$OZZ_SRC/include" bench/peers/ozz_driver.cpp \
    "$(lib ozz_geometry)" "$(lib ozz_animation)" "$(lib ozz_base)" -lpthread -o "$W/ozz_driver"
${CXX:-c++} -std=c++17 $FLAGS -I"$OZZ_SRC/include" -I"$ROOT/include" bench/peers/skinning_pair.cpp \
    "$(lib ozz_geometry)" "$(lib ozz_base)" "$B/libcna.a" -lcglm -lcjson -lm -lpthread \
    -o "$W/skinning_pair"
${CXX:-c++} -std=c++17 $FLAGS -I"$OZZ_SRC/include" -I"$ROOT/include" bench/peers/player_pair.cpp \
    "$(lib ozz_geometry)" "$(lib ozz_animation)" "$(lib ozz_base)" "$B/libcna.a" -lcglm -lcjson \
    -lmeshoptimizer $(grep -q -- -ldraco "$B/cna.pc" && echo "-ldraco -lstdc++") -lm -lpthread \
    -o "$W/player_pair"
GLTF2OZZ=$(find "$W/ozz-build/src" -name gltf2ozz -type f | head -n 1)
# The IK peer: skipped, with the reason, where this ozz tree cannot give it.
IK_PEER=
if [ ! -f "$OZZ_SRC/include/ozz/animation/runtime/ik_two_bone_job.h" ]; then
    echo "== skipping the IK peer: $OZZ_SRC has no IKTwoBoneJob (ozz-animation 0.11 or later has it)"
elif ! cmake --build "$W/ozz-build" --target ozz_animation_offline >"$W/ozz-ik-build.log" 2>&1; then
    echo "== skipping the IK peer: ozz's offline library did not build (see $W/ozz-ik-build.log)"
elif ! ${CXX:-c++} -std=c++17 $FLAGS -I"$OZZ_SRC/include" -I"$ROOT/include" bench/peers/ozz_ik.cpp \
    "$(lib ozz_animation_offline)" "$(lib ozz_animation)" "$(lib ozz_base)" "$B/libcna.a" -lcglm -lcjson \
    -lmeshoptimizer $(grep -q -- -ldraco "$B/cna.pc" && echo "-ldraco -lstdc++") -lm -lpthread \
    -o "$W/ozz_ik" >>"$W/ozz-ik-build.log" 2>&1; then
    echo "== skipping the IK peer: bench/peers/ozz_ik.cpp did not compile (see $W/ozz-ik-build.log)"
else
    IK_PEER=$W/ozz_ik
fi

echo "== converting the models"
convert_ozz() { # NAME FILE
    (cd "$W/data" && "$GLTF2OZZ" --file="$2" --log_level=silent \
        --config="{\"skeleton\":{\"filename\":\"$1_skeleton.ozz\"},\"animations\":[{\"clip\":\"*\",\"filename\":\"$1_*.ozz\"}]}")
}
convert_ozz robot "$ROBOT"
convert_ozz rig19 "$RIG19"
convert_ozz rig150 "$RIG150"
"$B/cna" convert "$RIG150" -o "$W/data/rig150.cnb" --split-palettes
"$B/cna" convert "$ROBOT" -o "$W/data/robot_reduced.cnb" --reduce-keys 0.001
"$B/cna" convert "$RIG19" -o "$W/data/rig19_reduced.cnb" --reduce-keys 0.001
[ -f "$W/data/rig19_$RIG19_CLIP.ozz" ] || { echo "error: gltf2ozz wrote no rig19_$RIG19_CLIP.ozz" >&2; exit 1; }

R=$W/results.txt
: >"$R"
# field NAME: the first "NAME":number of a JSON line on stdin
field() { tr ',{' '\n\n' | sed -n "s/^\"$1\":\([-0-9.e+]*\).*/\1/p" | head -n 1; }
one() { sed -n 's/.*"one_character":{[^}]*"ns_per_character_frame":\([-0-9.e+]*\).*/\1/p' | head -n 1; }
record() { echo "$1 $2 $3" >>"$R"; }     # WORKLOAD SIDE VALUE
pin() { taskset -c "$CORE" "$@"; }
S="--seconds $SECONDS_PER_RUN"

player_cna() { # LABEL FILE CLIP [SAMPLING: exact (default) or fast]
    out=$(pin "$B/cna" bench "$2" --clip "$3" --characters 1000 --player-only --json --sampling "${4:-exact}" $S |
        head -n 1)
    record "$1/1" cna "$(echo "$out" | one)"
    record "$1/1000" cna "$(echo "$out" | field ns_per_character_frame)"
    record "$1/1000-lanes" cna "$(echo "$out" | field lanes_ns_per_character_frame)"
}
player_ozz() { # LABEL SKELETON ANIMATION
    out=$(pin "$W/ozz_driver" --skeleton "$2" --animation "$3" --characters 1000 $S)
    record "$1/1" ozz "$(echo "$out" | one)"
    record "$1/1000" ozz "$(echo "$out" | field ns_per_character_frame)"
}

echo "== machine: $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== cna commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), ozz $(git -C "$OZZ_SRC" describe --tags --always 2>/dev/null || echo "$OZZ_SRC"), $(date -u '+%Y-%m-%d %H:%M UTC')"
PARTS=
i=1
while [ "$i" -le "$REPS" ]; do
    echo "== repetition $i of $REPS"
    player_cna robot "$ROBOT" Robot_Walking
    player_ozz robot "$W/data/robot_skeleton.ozz" "$W/data/robot_Robot_Walking.ozz"
    player_cna rig19 "$RIG19" "$RIG19_CLIP"
    player_ozz rig19 "$W/data/rig19_skeleton.ozz" "$W/data/rig19_$RIG19_CLIP.ozz"
    player_cna rig150 "$W/data/rig150.cnb" Wave
    player_ozz rig150 "$W/data/rig150_skeleton.ozz" "$W/data/rig150_Wave.ozz"
    player_cna robot-reduced "$W/data/robot_reduced.cnb" Robot_Walking
    player_cna rig19-reduced "$W/data/rig19_reduced.cnb" "$RIG19_CLIP"
    player_cna robot-fast "$ROBOT" Robot_Walking fast
    player_cna rig19-fast "$RIG19" "$RIG19_CLIP" fast
    out=$(taskset -c "$CROWD_CORES" "$B/bench/bench_player" --crowd-only --json --characters 1000 $S)
    record crowd/2-threads cna "$(echo "$out" | field threads_2_ns_per_character_frame)"
    out=$(taskset -c "$CROWD_CORES" "$W/ozz_driver" --skeleton "$W/data/robot_skeleton.ozz" \
        --animation "$W/data/robot_Robot_Walking.ozz" --characters 1000 --threads 2 $S)
    record crowd/2-threads ozz "$(echo "$out" | field ns_per_character_frame)"
    out=$(pin "$B/bench/bench_skinning" --json $S)
    record skinning/ns-per-vertex cna "$(echo "$out" | field fast_ns_per_vertex)"
    record skinning/streams cna "$(echo "$out" | field streams_ns_per_vertex)"
    record skinning/streams-not-renorm cna "$(echo "$out" | field streams_raw_ns_per_vertex)"
    PARTS=$(echo "$out" | sed -n 's/.*"parts":"\([0-9,]*\)".*/\1/p')
    out=$(pin "$W/ozz_driver" --skinning --parts "$PARTS" --skeleton "$W/data/robot_skeleton.ozz" \
        --animation "$W/data/robot_Robot_Walking.ozz" $S)
    ozz_skin=$(echo "$out" | field ns_per_vertex)
    record skinning/ns-per-vertex ozz "$ozz_skin"
    record skinning/streams ozz "$ozz_skin"
    record skinning/streams-not-renorm ozz "$ozz_skin"
    i=$((i + 1))
done
echo "== CPU skinning in one process, fastest of 3000 alternating sweeps (bench/peers/skinning_pair.cpp)"
pin "$W/skinning_pair" 3000
echo "== the players in one process, fastest of alternating sweeps (bench/peers/player_pair.cpp)"
D=$W/data
for n in 1 1000; do
    sweeps=$([ "$n" = 1 ] && echo 300 || echo 100)
    echo "robot/$n $(pin "$W/player_pair" "$ROBOT" Robot_Walking "$D/robot_skeleton.ozz" "$D/robot_Robot_Walking.ozz" "$n" "$sweeps")"
    echo "rig19/$n $(pin "$W/player_pair" "$RIG19" "$RIG19_CLIP" "$D/rig19_skeleton.ozz" "$D/rig19_$RIG19_CLIP.ozz" "$n" "$sweeps")"
    echo "rig150/$n $(pin "$W/player_pair" "$D/rig150.cnb" Wave "$D/rig150_skeleton.ozz" "$D/rig150_Wave.ozz" "$n" "$sweeps")"
done
if [ -n "$IK_PEER" ]; then
    echo "== IK in one process, medians of 7 alternating runs, then fastest batches (bench/peers/ozz_ik.cpp)"
    pin "$IK_PEER" "$ROBOT"
fi
echo "== load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== medians of $REPS repetitions (ns per character-frame; skinning: ns per vertex); ratio = cna / ozz"
echo "   (robot-reduced, rig19-reduced: cna with keys reduced at 1 mm, beside ozz's default-optimised clip;"
echo "    robot-fast, rig19-fast: cna in CNA_SAMPLING_FAST, every key kept;"
echo "    1000-lanes: cna's 1000 players by one cna_crowd_update on one thread, beside ozz's 1000)"
awk '
function median(list,   n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{ key = $1 " " $2; v[key] = v[key] " " $3; if (!($1 in seen)) { seen[$1] = 1; order[++count] = $1 } }
END {
    printf "%-28s %12s %12s %8s\n", "workload", "cna", "ozz", "cna/ozz"
    for (k = 1; k <= count; k++) {
        w = order[k]; c = median(v[w " cna"])
        o = w; sub(/-reduced/, "", o); sub(/-fast/, "", o); sub(/-lanes/, "", o); z = median(v[o " ozz"])
        printf "%-28s %12.2f %12.2f %8.3f\n", w, c, z, (z > 0 ? c / z : 0)
    }
}' "$R"
echo "== every figure: $R"
