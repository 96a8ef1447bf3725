// bench/peers/player_pair.cpp — cna's player and ozz-animation's in one process.
//
// Our own program (not part of ozz, not part of cna's build: bench/peers/run.sh compiles it
// against cna's static library and an ozz build made from ozz's own source tree). Where
// run.sh times each side in its own process (medians of runs), this one puts both in one
// process and alternates them sweep by sweep, keeping each side's fastest sweep: a
// preemption or a busy sibling core can slow a sweep but never speed one up, so on a
// shared machine the fastest sweeps compare the sides far more steadily (as
// skinning_pair.cpp does for CPU skinning).
//
// Workload (cna bench --player-only's and ozz_driver's): N characters of one skeleton playing
// one clip, each advanced by 1/60 s per frame, looping, character i starting at phase i/N.
// Sides:
//   exact, exact_lanes: cna_player_update on each player (CNA_SAMPLING_EXACT), and the same
//     players by one cna_crowd_update on a one-thread crowd (players in vector lanes);
//   fast, fast_lanes: the same in CNA_SAMPLING_FAST;
//   ozz: ozz_driver.cpp's characters (SamplingJob with its context, LocalToModelJob, the
//     skin palette).
// Each timed sweep follows one untimed frame of its side, so that it finds its own data in
// the caches (as a side running alone does) rather than the other sides'.
// Prints one JSON line: each side's ns per character-frame (its fastest sweep) and the
// ratios cna / ozz.
// Usage: player_pair CNA_MODEL CLIP SKELETON.ozz ANIMATION.ozz [CHARACTERS] [SWEEPS]
//   (defaults 1 and 400; CNA_MODEL: a .gltf, .glb or .cnb that cna loads)
#define OZZ_DRIVER_NO_MAIN
#include "ozz_driver.cpp"

#include "cna/cna.h"

namespace {

struct CnaSide {
  std::vector<cna_player*> players;
  cna_crowd* crowd = nullptr;
  ~CnaSide() {
    for (cna_player* p : players) cna_player_free(p);
    cna_crowd_free(crowd);
  }
};

bool MakeCna(const cna_skinning_data* data, const cna_clip* clip, size_t n, cna_sampling sampling,
             CnaSide* side) {
  if (cna_crowd_create(nullptr, &side->crowd, nullptr) != CNA_OK) return false;
  for (size_t i = 0; i < n; ++i) {
    cna_player* p = nullptr;
    if (cna_player_create(data, nullptr, &p, nullptr) != CNA_OK) return false;
    side->players.push_back(p);
    const int64_t phase =
        clip->duration > 0 ? static_cast<int64_t>(static_cast<double>(clip->duration) * static_cast<double>(i) /
                                                  static_cast<double>(n))
                           : 0;
    if (cna_player_set_sampling(p, sampling, nullptr) != CNA_OK || (clip ? cna_player_start_clip(p, clip, nullptr) : cna_player_stop(p, nullptr)) != CNA_OK ||
        cna_player_update(p, phase, false, true, nullptr) != CNA_OK)
      return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s CNA_MODEL CLIP SKELETON.ozz ANIMATION.ozz [CHARACTERS] [SWEEPS]\n", argv[0]);
    return 2;
  }
  const size_t n = argc > 5 ? std::strtoul(argv[5], nullptr, 10) : 1;
  const int sweeps = argc > 6 ? std::atoi(argv[6]) : 400;
  if (n == 0 || sweeps <= 0) {
    std::fprintf(stderr, "usage: %s CNA_MODEL CLIP SKELETON.ozz ANIMATION.ozz [CHARACTERS] [SWEEPS]\n", argv[0]);
    return 2;
  }
  cna_model* model = nullptr;
  cna_error err;
  if (cna_model_load_any(argv[1], nullptr, &model, &err) != CNA_OK) {
    std::fprintf(stderr, "error: %s\n", err.message);
    return 1;
  }
  const cna_skinning_data* data = cna_model_skinning_data(model);
  const cna_clip* clip = data ? cna_skinning_data_find_clip(data, argv[2]) : nullptr;
  if (!clip) {
    std::fprintf(stderr, "error: %s: no clip '%s' in its first skin\n", argv[1], argv[2]);
    cna_model_free(model);
    return 1;
  }
  Scene s;
  if (!Load(argv[3], &s.skeleton) || !Load(argv[4], &s.animation) || !InitScene(s)) {
    cna_model_free(model);
    return 1;
  }
  MakeCharacters(s, n);
  int rc = 0;
  {
    CnaSide exact, fast;
    if (!MakeCna(data, clip, n, CNA_SAMPLING_EXACT, &exact) || !MakeCna(data, clip, n, CNA_SAMPLING_FAST, &fast)) {
      std::fprintf(stderr, "error: could not create %zu cna players\n", n);
      cna_model_free(model);
      return 1;
    }
    const int64_t step = CNA_TICKS_PER_SECOND / 60;
    // about 2 ms of work per sweep and side, at least 4 frames
    const int frames = std::max(4, static_cast<int>(2000.0 / static_cast<double>(n)));
    enum { kExact, kExactLanes, kFast, kFastLanes, kOzz, kSides };
    auto run = [&](int side, int count) {
      CnaSide& c = side < kFast ? exact : fast;
      for (int f = 0; f < count; ++f) {
        if (side == kOzz)
          s.failed |= !Frame(s, 0, n);
        else if (side == kExactLanes || side == kFastLanes)
          cna_crowd_update(c.crowd, c.players.data(), n, step, true, true, nullptr);
        else
          for (cna_player* p : c.players) cna_player_update(p, step, true, true, nullptr);
      }
    };
    double best[kSides];
    for (int k = 0; k < kSides; ++k) {
      run(k, frames);  // warm-up
      best[k] = 1e30;
    }
    for (int w = 0; w < sweeps; ++w)
      for (int j = 0; j < kSides; ++j) {
        const int k = (w + j) % kSides;  // each side in each place of the order in turn
        run(k, 1);  // one frame untimed: this side's data back in the caches the others used
        const double t0 = Now();
        run(k, frames);
        best[k] = std::min(best[k], Now() - t0);
      }
    if (s.failed) {
      std::fprintf(stderr, "error: a sampling or local-to-model job failed\n");
      rc = 1;
    } else {
      const double per = 1e9 / (static_cast<double>(frames) * static_cast<double>(n));
      const double z = best[kOzz] * per;
      std::printf("{\"characters\":%zu,\"joints\":%d,\"ozz_joints\":%d,\"sweeps\":%d,\"ozz_ns\":%.2f,"
                  "\"exact_ns\":%.2f,\"exact_lanes_ns\":%.2f,\"fast_ns\":%.2f,\"fast_lanes_ns\":%.2f,"
                  "\"ratio_exact\":%.3f,\"ratio_exact_lanes\":%.3f,\"ratio_fast\":%.3f,\"ratio_fast_lanes\":%.3f}\n",
                  n, data->bone_count, s.skeleton.num_joints(), sweeps, z, best[kExact] * per,
                  best[kExactLanes] * per, best[kFast] * per, best[kFastLanes] * per, best[kExact] * per / z,
                  best[kExactLanes] * per / z, best[kFast] * per / z, best[kFastLanes] * per / z);
    }
  }
  cna_model_free(model);
  return rc;
}
