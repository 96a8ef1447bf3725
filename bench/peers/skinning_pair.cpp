// bench/peers/skinning_pair.cpp — CPU skinning of cna and ozz-animation in one process.
//
// Our own program (not part of ozz, not part of cna's build: bench/peers/run.sh compiles it
// against cna's static library and an ozz build made from ozz's own source tree). Where
// run.sh times each side in its own process (medians of runs), this one puts both in one
// process and alternates them sweep by sweep, keeping each side's fastest sweep: a
// preemption or a busy sibling core can slow a sweep but never speed one up, so on a
// shared machine the fastest sweeps compare the two sides far more steadily.
//
// Workload (bench_skinning's and ozz_driver --skinning's): parts of RobotExpressive's 19
// skinned part sizes (7218 vertices), 4 influences of weight 1/4 on joints
// (v · 7 + k · 11 + part) mod 43, positions + normals, a palette of 43 random affine
// matrices (the arithmetic does not depend on the values). ozz: SkinningJob on separate
// position, normal, index (uint16) and weight (3 floats) arrays, writing packed position and
// normal arrays. cna: the same vertices interleaved in stride-52 vertices (position,
// normal, texcoord, joints, weights), by cna_skin_streams into packed arrays (renormalising,
// and with CNA_SKIN_NO_RENORMALIZE, the work SkinningJob does) and by
// cna_skin_vertices_fast (interleaved out).
//
// Prints one JSON line: ns_per_vertex of each side's fastest sweep and the ratios to ozz.
// Usage: skinning_pair [SWEEPS]   (default 3000)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "ozz/base/maths/simd_math.h"
#include "ozz/base/span.h"
#include "ozz/geometry/runtime/skinning_job.h"

#include "cna/cna.h"

namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Part {
  int n = 0;
  std::vector<float> pos, nrm, w, out_pos, out_nrm;
  std::vector<uint16_t> idx;
  std::vector<unsigned char> v52, out52;
};

}  // namespace

int main(int argc, char** argv) {
  const int sweeps = argc > 1 ? std::atoi(argv[1]) : 3000;
  if (sweeps <= 0) {
    std::fprintf(stderr, "usage: %s [SWEEPS]\n", argv[0]);
    return 2;
  }
  static const int kParts[] = {296, 284, 66,  66,  256, 298, 256, 298, 876, 302,
                               564, 270, 270, 370, 370, 232, 232, 1344, 568};
  const int joints = 43;
  std::vector<ozz::math::Float4x4> ozz_palette(joints);
  std::vector<cna_mat4> palette(joints);
  std::srand(1);
  for (int j = 0; j < joints; ++j) {
    float m[16];
    for (float& x : m) x = static_cast<float>(std::rand()) / RAND_MAX - 0.5f;
    m[3] = m[7] = m[11] = 0.0f;
    m[15] = 1.0f;
    std::memcpy(palette[j].m, m, sizeof m);
    for (int c = 0; c < 4; ++c)
      ozz_palette[j].cols[c] = ozz::math::simd_float4::Load(m[4 * c], m[4 * c + 1], m[4 * c + 2], m[4 * c + 3]);
  }
  std::vector<Part> parts;
  size_t total = 0;
  for (size_t p = 0; p < sizeof kParts / sizeof kParts[0]; ++p) {
    Part q;
    const size_t n = static_cast<size_t>(kParts[p]);
    q.n = kParts[p];
    q.pos.resize(3 * n);
    q.nrm.resize(3 * n);
    q.out_pos.resize(3 * n);
    q.out_nrm.resize(3 * n);
    q.w.assign(3 * n, 0.25f);
    q.idx.resize(4 * n);
    q.v52.assign(52 * n, 0);
    q.out52.resize(52 * n);
    for (size_t v = 0; v < n; ++v) {
      for (size_t k = 0; k < 3; ++k) {
        q.pos[3 * v + k] = 0.01f * static_cast<float>((v * (k + 3)) % 97);
        q.nrm[3 * v + k] = k == 1 ? 1.0f : 0.0f;
      }
      uint8_t j8[4];
      const float w4[4] = {0.25f, 0.25f, 0.25f, 0.25f};
      for (size_t k = 0; k < 4; ++k) {
        q.idx[4 * v + k] = static_cast<uint16_t>((v * 7 + k * 11 + p) % static_cast<size_t>(joints));
        j8[k] = static_cast<uint8_t>(q.idx[4 * v + k]);
      }
      unsigned char* d = &q.v52[52 * v];
      std::memcpy(d, &q.pos[3 * v], 12);
      std::memcpy(d + 12, &q.nrm[3 * v], 12);
      std::memcpy(d + 32, j8, 4);
      std::memcpy(d + 36, w4, 16);
    }
    total += n;
    parts.push_back(std::move(q));
  }
  cna_skinning_layout layout;
  if (cna_skinning_layout_canonical(52, &layout, nullptr) != CNA_OK) return 1;
  bool ok = true;
  auto ozz_sweep = [&] {
    for (Part& q : parts) {
      ozz::geometry::SkinningJob job;
      job.vertex_count = q.n;
      job.influences_count = 4;
      job.joint_matrices = ozz::make_span(ozz_palette);
      job.joint_indices = ozz::make_span(q.idx);
      job.joint_indices_stride = 4 * sizeof(uint16_t);
      job.joint_weights = ozz::make_span(q.w);
      job.joint_weights_stride = 3 * sizeof(float);
      job.in_positions = ozz::make_span(q.pos);
      job.in_positions_stride = 3 * sizeof(float);
      job.in_normals = ozz::make_span(q.nrm);
      job.in_normals_stride = 3 * sizeof(float);
      job.out_positions = ozz::make_span(q.out_pos);
      job.out_positions_stride = 3 * sizeof(float);
      job.out_normals = ozz::make_span(q.out_nrm);
      job.out_normals_stride = 3 * sizeof(float);
      ok &= job.Run();
    }
  };
  auto streams_sweep = [&](uint32_t flags) {
    for (Part& q : parts) {
      cna_skinning_streams s;
      std::memset(&s, 0, sizeof s);
      s.positions = q.out_pos.data();
      s.positions_size = 12 * static_cast<size_t>(q.n);
      s.normals = q.out_nrm.data();
      s.normals_size = 12 * static_cast<size_t>(q.n);
      s.flags = flags;
      ok &= cna_skin_streams(&layout, q.v52.data(), static_cast<size_t>(q.n), palette.data(),
                             palette.size(), &s, nullptr) == CNA_OK;
    }
  };
  auto fast_sweep = [&] {
    for (Part& q : parts)
      ok &= cna_skin_vertices_fast(&layout, q.v52.data(), static_cast<size_t>(q.n), palette.data(),
                                   palette.size(), q.out52.data(), q.out52.size(), nullptr) == CNA_OK;
  };
  double best[4] = {1e30, 1e30, 1e30, 1e30};
  for (int s = 0; s < sweeps; ++s)
    for (int k = 0; k < 4; ++k) {
      const double t0 = Now();
      if (k == 0) ozz_sweep();
      else if (k == 1) streams_sweep(CNA_SKIN_NO_RENORMALIZE);
      else if (k == 2) streams_sweep(0);
      else fast_sweep();
      best[k] = std::min(best[k], Now() - t0);
    }
  if (!ok) {
    std::fprintf(stderr, "error: a skinning call refused its inputs\n");
    return 1;
  }
  const double n = static_cast<double>(total);
  std::printf(
      "{\"vertices\":%zu,\"sweeps\":%d,\"ozz_ns_per_vertex\":%.3f,\"streams_not_renorm_ns_per_vertex\":%.3f,"
      "\"streams_ns_per_vertex\":%.3f,\"fast_ns_per_vertex\":%.3f,\"ratio_streams_not_renorm\":%.3f,"
      "\"ratio_streams\":%.3f,\"ratio_fast\":%.3f}\n",
      total, sweeps, best[0] * 1e9 / n, best[1] * 1e9 / n, best[2] * 1e9 / n, best[3] * 1e9 / n,
      best[1] / best[0], best[2] / best[0], best[3] / best[0]);
  return 0;
}
