/*
 * bench/peers/ozz_ik.cpp — cna's IK beside ozz-animation's IKTwoBoneJob and
 * IKAimJob, in one process on the same RobotExpressive pose (Robot_Walking at
 * 0 s), for side-by-side figures. Our own code against ozz's and cna's public
 * APIs; ozz's sources are never copied here. bench/peers/run.sh builds and
 * runs it (pinned to one core); by hand, with an ozz-animation 0.16 source
 * tree in OZZ_SRC and cna built in build/:
 *   O=$OZZ_SRC; g++ -O2 -DNDEBUG -mavx2 -mfma -std=c++17 -I$O/include -I$O/src -Iinclude
 *       bench/peers/ozz_ik.cpp $O/src/animation/runtime/{ik_two_bone_job,ik_aim_job,skeleton,
 *       skeleton_utils,local_to_model_job}.cc $O/src/animation/offline/{raw_skeleton,skeleton_builder}.cc
 *       $(find $O/src/base -name '*.cc') build/libcna.a -lcglm -lcjson -lmeshoptimizer
 *       [-ldraco -lstdc++] -lm -lpthread -o build/ozz_ik
 *   taskset -c 1 build/ozz_ik tests/data/corpus/valid/RobotExpressive/robot.glb
 * Workloads (the parameters of bench/ik.c):
 *   two-bone   the solve alone on the left arm (UpperArm.L, LowerArm.L,
 *              Palm2.L): cna_ik_two_bone_solve / IKTwoBoneJob
 *   aim        the solve alone on the head: cna_ik_aim_solve / IKAimJob
 *   2bone+l2m  two-bone IK applied to the character: cna_character_two_bone_ik
 *              (solve, apply both corrections, recompute the arm's subtree:
 *              absolutes, joint worlds and the skin palette); ozz: the job,
 *              both corrections multiplied into the joints' local rotations,
 *              and LocalToModelJob from the start joint (its subtree; no
 *              skin palette)
 * The skeleton ozz gets is the robot's skin (43 joints, the same hierarchy,
 * its local transforms the pose's). Each figure is ns per call: the median of
 * 7 runs of >= 0.2 s [min-max], the sides alternating run by run; then each
 * side's fastest of 2000 batches of 8 calls, the sides alternating batch by
 * batch (on a shared machine a batch that ran undisturbed is the work's own
 * cost, where a run of 0.2 s also holds the time other processes took).
 */
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <vector>

#include "cna/cna.h"
#include "ozz/animation/offline/raw_skeleton.h"
#include "ozz/animation/offline/skeleton_builder.h"
#include "ozz/animation/runtime/ik_aim_job.h"
#include "ozz/animation/runtime/ik_two_bone_job.h"
#include "ozz/animation/runtime/local_to_model_job.h"
#include "ozz/animation/runtime/skeleton.h"
#include "ozz/animation/runtime/skeleton_utils.h"
#include "ozz/base/maths/simd_math.h"
#include "ozz/base/maths/simd_quaternion.h"
#include "ozz/base/maths/soa_transform.h"

using namespace ozz::math;

volatile float sink;

static double run_once(const std::function<void()> &run)
{
    const auto t0 = std::chrono::steady_clock::now();
    long n = 0;
    double elapsed = 0;
    do {
        for (int i = 0; i < 1000; i++) run();
        n += 1000;
        elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    } while (elapsed < 0.2);
    return elapsed / (double)n * 1e9;
}

// each side's fastest batch of 8 calls, of 2000, the sides alternating
static void fastest(const char *name, const std::function<void()> &a, const std::function<void()> &b)
{
    double best[2] = {1e9, 1e9};
    const std::function<void()> *side[2] = {&a, &b};
    for (int k = 0; k < 2000; k++)
        for (int s = 0; s < 2; s++) {
            const auto t0 = std::chrono::steady_clock::now();
            for (int i = 0; i < 8; i++) (*side[s])();
            const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / 8 * 1e9;
            if (t < best[s]) best[s] = t;
        }
    std::printf("%-10s fastest batch: cna %8.1f ns  ozz %8.1f ns  cna/ozz %.3f\n", name, best[0], best[1],
                best[0] / best[1]);
}

static void report(const char *name, std::vector<double> cna, std::vector<double> ozz)
{
    std::sort(cna.begin(), cna.end());
    std::sort(ozz.begin(), ozz.end());
    const size_t m = cna.size() / 2;
    std::printf("%-10s cna %8.1f ns [%.1f-%.1f]  ozz %8.1f ns [%.1f-%.1f]  cna/ozz %.3f\n", name, cna[m], cna.front(),
                cna.back(), ozz[m], ozz.front(), ozz.back(), cna[m] / ozz[m]);
}

static Float4x4 load(const cna_mat4 *m)
{
    Float4x4 r;
    for (int c = 0; c < 4; c++)
        r.cols[c] = simd_float4::Load(m->m[c * 4], m->m[c * 4 + 1], m->m[c * 4 + 2], m->m[c * 4 + 3]);
    return r;
}

// The raw joint of bone `bone` and, below it, the skin's joints whose parent it is.
static void add_joint(const cna_model *m, const cna_character *c, const std::vector<int> &joints, int bone,
                      ozz::animation::offline::RawSkeleton::Joint *out)
{
    out->name = m->bones[bone].name;
    cna_vec3 t, s;
    cna_quat q;
    cna_mat4_decompose(cna_character_bone_transform(c, (size_t)bone), &t, &q, &s);
    out->transform.translation = Float3(t.x, t.y, t.z);
    out->transform.rotation = Quaternion(q.x, q.y, q.z, q.w);
    out->transform.scale = Float3(s.x, s.y, s.z);
    for (int b : joints)
        if (m->bones[b].parent == bone) {
            out->children.emplace_back();
            add_joint(m, c, joints, b, &out->children.back());
        }
}

// local rotation of joint j = local rotation · q (the corrections' convention), in the SoA locals
static void rotate_local(std::vector<SoaTransform> &locals, int j, const SimdQuaternion &q)
{
    SoaQuaternion &r = locals[(size_t)j / 4].rotation;
    float x[4], y[4], z[4], w[4], c[4];
    StorePtrU(r.x, x);
    StorePtrU(r.y, y);
    StorePtrU(r.z, z);
    StorePtrU(r.w, w);
    StorePtrU(q.xyzw, c);
    const int l = j & 3;
    const float ax = x[l], ay = y[l], az = z[l], aw = w[l];
    x[l] = aw * c[0] + ax * c[3] + ay * c[2] - az * c[1];
    y[l] = aw * c[1] - ax * c[2] + ay * c[3] + az * c[0];
    z[l] = aw * c[2] + ax * c[1] - ay * c[0] + az * c[3];
    w[l] = aw * c[3] - ax * c[0] - ay * c[1] - az * c[2];
    r.x = simd_float4::LoadPtrU(x);
    r.y = simd_float4::LoadPtrU(y);
    r.z = simd_float4::LoadPtrU(z);
    r.w = simd_float4::LoadPtrU(w);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s ROBOT.glb\n", argv[0]);
        return 2;
    }
    cna_error err;
    cna_model *m = nullptr;
    cna_character *c = nullptr, *pose = nullptr;
    size_t walk = 0;
    if (cna_model_load_file(argv[1], nullptr, &m, &err) != CNA_OK ||
        cna_model_find_animation(m, "Robot_Walking", &walk, &err) != CNA_OK ||
        cna_character_create(m, nullptr, &c, &err) != CNA_OK ||
        cna_character_create(m, nullptr, &pose, &err) != CNA_OK ||
        cna_character_play(c, (long)walk, &err) != CNA_OK || cna_character_play(pose, (long)walk, &err) != CNA_OK ||
        cna_character_pose(c, &err) != CNA_OK || cna_character_pose(pose, &err) != CNA_OK) {
        std::fprintf(stderr, "ozz_ik: %s\n", err.message);
        return 1;
    }
    // ozz's skeleton: the skin's joints, rooted where their parent is not a joint
    const cna_model_skin &skin = m->skins[0];
    std::vector<int> joints;
    for (size_t p = 0; p < skin.joint_count; p++)
        if (skin.palette_to_node[p] >= 0) joints.push_back(skin.palette_to_node[p]);
    ozz::animation::offline::RawSkeleton raw;
    for (int b : joints) {
        const int parent = m->bones[b].parent;
        if (parent >= 0 && std::find(joints.begin(), joints.end(), parent) != joints.end()) continue;
        raw.roots.emplace_back();
        add_joint(m, pose, joints, b, &raw.roots.back());
    }
    ozz::animation::offline::SkeletonBuilder build;
    const auto skeleton = build(raw);
    if (!skeleton) {
        std::fprintf(stderr, "ozz_ik: ozz could not build the skeleton\n");
        return 1;
    }
    const auto rest = skeleton->joint_rest_poses();
    std::vector<SoaTransform> locals(rest.begin(), rest.end());
    std::vector<Float4x4> models((size_t)skeleton->num_joints());
    ozz::animation::LocalToModelJob l2m;
    l2m.skeleton = skeleton.get();
    l2m.input = ozz::make_span(locals);
    l2m.output = ozz::make_span(models);
    if (!l2m.Run()) return 1;
    const int start = ozz::animation::FindJoint(*skeleton, "UpperArm.L");
    const int mid = ozz::animation::FindJoint(*skeleton, "LowerArm.L");
    const int end = ozz::animation::FindJoint(*skeleton, "Palm2.L");
    const int head = ozz::animation::FindJoint(*skeleton, "Head");
    if (start < 0 || mid < 0 || end < 0 || head < 0) return 1;
    l2m.from = start;

    // the parameters of bench/ik.c
    cna_ik_two_bone tb = cna_ik_two_bone_defaults();
    tb.target = cna_vec3_make(1.5f, 3.0f, 1.0f);
    tb.pole = cna_vec3_make(0, 0, -1);
    tb.mid_axis = cna_vec3_make(1, 0, 0);
    cna_ik_aim ca = cna_ik_aim_defaults();
    ca.forward = cna_vec3_make(0, 0, 1);
    ca.target = cna_vec3_make(0, 5, 5);
    const cna_mat4 *cs = cna_character_absolute_transform(pose, (size_t)cna_model_find_bone(m, "UpperArm.L"));
    const cna_mat4 *cm = cna_character_absolute_transform(pose, (size_t)cna_model_find_bone(m, "LowerArm.L"));
    const cna_mat4 *ce = cna_character_absolute_transform(pose, (size_t)cna_model_find_bone(m, "Palm2.L"));
    const cna_mat4 *ch = cna_character_absolute_transform(pose, (size_t)cna_model_find_bone(m, "Head"));
    cna_quat q[2];

    const Float4x4 s = load(cs), mm = load(cm), e = load(ce), h = load(ch);
    SimdQuaternion qs, qm, qa;
    bool reached = false;
    ozz::animation::IKTwoBoneJob two_bone;
    two_bone.start_joint = &s;
    two_bone.mid_joint = &mm;
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
    // the same job on the skeleton's own model matrices, its corrections applied
    ozz::animation::IKTwoBoneJob applied = two_bone;
    applied.start_joint = &models[(size_t)start];
    applied.mid_joint = &models[(size_t)mid];
    applied.end_joint = &models[(size_t)end];

    const std::function<void()> sides[3][2] = {
        {[&] {
             cna_ik_two_bone_solve(&tb, cs, cm, ce, &q[0], &q[1], nullptr, nullptr);
             sink = q[0].x;
         },
         [&] {
             two_bone.Run();
             sink = GetX(qs.xyzw);
         }},
        {[&] {
             cna_ik_aim_solve(&ca, ch, &q[0], nullptr, nullptr);
             sink = q[0].x;
         },
         [&] {
             aim.Run();
             sink = GetX(qa.xyzw);
         }},
        {[&] {
             cna_character_two_bone_ik(c, "Palm2.L", &tb, nullptr, nullptr);
             sink = cna_character_skin_transforms(c, 0)[0].m[0];
         },
         [&] {
             applied.Run();
             rotate_local(locals, start, qs);
             rotate_local(locals, mid, qm);
             l2m.Run();
             sink = GetX(models[(size_t)end].cols[3]);
         }},
    };
    static const char *const names[3] = {"two-bone", "aim", "2bone+l2m"};
    std::printf("== ozz_ik: RobotExpressive (%d joints for ozz), Robot_Walking at 0 s, 7 runs of >= 0.2 s\n",
                skeleton->num_joints());
    for (int w = 0; w < 3; w++) {
        std::vector<double> a, b;
        for (int r = 0; r < 7; r++) {
            a.push_back(run_once(sides[w][0]));
            b.push_back(run_once(sides[w][1]));
        }
        report(names[w], a, b);
    }
    for (int w = 0; w < 3; w++) fastest(names[w], sides[w][0], sides[w][1]);
    cna_character_free(c);
    cna_character_free(pose);
    cna_model_free(m);
    return 0;
}
