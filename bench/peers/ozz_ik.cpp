/*
 * bench/peers/ozz_ik.cpp — ozz-animation's IKTwoBoneJob and IKAimJob timed on
 * the same RobotExpressive matrices bench/ik.c gives cna's solvers (the left
 * arm's UpperArm.L, LowerArm.L and Palm2.L and the Head of Robot_Walking at
 * 0 s, as `cna pose` prints them), for a side-by-side figure. Our own code
 * against ozz's public API; ozz's sources are never copied here. Build and
 * run, with an ozz-animation 0.16 source tree in OZZ_SRC, next to bench_ik on
 * the same core:
 *   g++ -O2 -DNDEBUG -mavx2 -mfma -std=c++17 -I$OZZ_SRC/include -I$OZZ_SRC/src
 *       bench/peers/ozz_ik.cpp $OZZ_SRC/src/animation/runtime/ik_two_bone_job.cc
 *       $OZZ_SRC/src/animation/runtime/ik_aim_job.cc $OZZ_SRC/src/base/log.cc
 *       $OZZ_SRC/src/base/memory/allocator.cc -o build/ozz_ik
 *   taskset -c 1 build/ozz_ik; taskset -c 1 build/bench/bench_ik
 * Prints ns per call: the median of 7 runs of >= 0.2 s [min-max].
 */
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "ozz/animation/runtime/ik_aim_job.h"
#include "ozz/animation/runtime/ik_two_bone_job.h"
#include "ozz/base/maths/simd_math.h"
#include "ozz/base/maths/simd_quaternion.h"

using namespace ozz::math;

static Float4x4 load(const float *m)
{
    Float4x4 r;
    for (int c = 0; c < 4; c++) r.cols[c] = simd_float4::Load(m[c * 4], m[c * 4 + 1], m[c * 4 + 2], m[c * 4 + 3]);
    return r;
}

// column-major model-space transforms (cna pose robot.glb --animation Robot_Walking --time 0)
static const float UPPER_ARM[16] = {0.167987704,-0.303043395,0.938053548,0,0.353194505,-0.869900227,-0.344276547,0,0.920344234,0.389149785,-0.0390992761,0,0.652367592,2.17660213,-0.108305566,1};
static const float LOWER_ARM[16] = {-0.906755328,-0.240010798,0.346683532,0,0.414660305,-0.656726241,0.629894376,0,0.0764949471,0.714915991,0.695013225,0,0.884519696,1.60482359,-0.334595889,1};
static const float PALM[16] = {-0.970474303,0.208779976,-0.120790385,0,-0.232146814,-0.672531307,0.702715397,0,0.0654777959,0.710008383,0.701142311,0,1.45185757,0.706291139,0.527225137,1};
static const float HEAD[16] = {0.999211609,-0.0237493794,-0.0318019241,0,0.0232057311,0.999579608,-0.0173563268,0,0.0322007611,0.0166046284,0.999343216,0,0.0606909767,2.87081313,-0.0103009557,1};

volatile float sink;

template <typename F> static void measure(const char *name, F run)
{
    std::vector<double> ns;
    for (int r = 0; r < 7; r++) {
        const auto t0 = std::chrono::steady_clock::now();
        long n = 0;
        double elapsed = 0;
        do {
            for (int i = 0; i < 1000; i++) run();
            n += 1000;
            elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        } while (elapsed < 0.2);
        ns.push_back(elapsed / (double)n * 1e9);
    }
    std::sort(ns.begin(), ns.end());
    std::printf("ozz %-9s %8.1f ns [%.1f-%.1f]\n", name, ns[3], ns[0], ns[6]);
}

int main()
{
    const Float4x4 s = load(UPPER_ARM), m = load(LOWER_ARM), e = load(PALM), h = load(HEAD);
    SimdQuaternion qs, qm, qa;
    bool reached = false;
    // the parameters of bench/ik.c
    ozz::animation::IKTwoBoneJob two_bone;
    two_bone.start_joint = &s;
    two_bone.mid_joint = &m;
    two_bone.end_joint = &e;
    two_bone.start_joint_correction = &qs;
    two_bone.mid_joint_correction = &qm;
    two_bone.reached = &reached;
    two_bone.target = simd_float4::Load(1.5f, 3.0f, 1.0f, 0.0f);
    two_bone.pole_vector = simd_float4::Load(0.0f, 0.0f, -1.0f, 0.0f);
    two_bone.mid_axis = simd_float4::x_axis();
    ozz::animation::IKAimJob aim;
    aim.joint = &h;
    aim.joint_correction = &qa;
    aim.forward = simd_float4::z_axis();
    aim.target = simd_float4::Load(0.0f, 5.0f, 5.0f, 0.0f);
    measure("two-bone", [&] {
        two_bone.Run();
        sink = GetX(qs.xyzw);
    });
    measure("aim", [&] {
        aim.Run();
        sink = GetX(qa.xyzw);
    });
    return 0;
}
