// bench/peers/ozz_driver.cpp — the ozz-animation side of bench/peers/run.sh.
//
// Our own program, written against ozz-animation's public API (it is not part
// of ozz and not part of cna's build: run.sh compiles it against an ozz build
// the user made from ozz's own source tree). It measures what cna's benchmarks
// measure, with the same method (tools/benchkit/bench.h: one warm-up call, then
// runs of at least S seconds, the median of at least 5 runs, with min-max):
//
//   player mode (default): N characters of one skeleton playing one animation,
//     each advanced by 1/60 s per frame, looping, character i starting at phase
//     i/N of the clip. A character-frame is, per character, what cna_player_update
//     does: ozz::animation::SamplingJob (with the character's own
//     SamplingJob::Context, so forward playback reuses its cached keys), then
//     LocalToModelJob (model-space matrices), then the skinning palette
//     skin[j] = model[j] · inverse(rest model[j]) with ozz's SIMD Float4x4
//     product (cna's player computes skin = world · inverse bind too).
//     Prints one JSON line: joints, characters, threads, ns_per_character_frame
//     (+ _min, _max) for N characters and the same for 1 character under
//     "one_character" (skipped with --threads above 1).
//   --threads T (T >= 2): the N characters are split into chunks of 16, taken
//     from a shared atomic counter by T threads (the calling thread and T - 1
//     workers created once and woken once per frame), as cna_crowd does.
//   --skinning: SkinningJob, 4 influences, positions + normals, over parts of
//     the vertex counts given by --parts (cna's bench_skinning prints them),
//     each vertex's joints spread over the skeleton as bench_skinning spreads
//     them ((v · 7 + n · 11 + part) mod joints, weights 1/4), with the palette
//     of the animation at half its duration. Prints ns_per_vertex (+ _min, _max).
//
// Usage:
//   ozz_driver --skeleton S.ozz --animation A.ozz [--characters N] [--threads T]
//              [--seconds S] [--runs R]
//   ozz_driver --skinning --parts 66,1344,... --skeleton S.ozz --animation A.ozz
//              [--seconds S] [--runs R]
// Exit status: 0 measured, 1 a file could not be read or a job failed, 2 usage.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "ozz/animation/runtime/animation.h"
#include "ozz/animation/runtime/local_to_model_job.h"
#include "ozz/animation/runtime/sampling_job.h"
#include "ozz/animation/runtime/skeleton.h"
#include "ozz/base/io/archive.h"
#include "ozz/base/io/stream.h"
#include "ozz/base/maths/simd_math.h"
#include "ozz/base/maths/soa_transform.h"
#include "ozz/base/span.h"
#include "ozz/geometry/runtime/skinning_job.h"

namespace {

// ------------------------------------------------------------------ timing (tools/benchkit/bench.h's method)

struct Stats {
  double median = 0, min = 0, max = 0;
};

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

template <typename F>
Stats Measure(F&& fn, int runs, double seconds) {
  fn();  // warm-up
  std::vector<double> per_call;
  for (int r = 0; r < std::max(runs, 5); ++r) {
    size_t calls = 0;
    const double t0 = Now();
    double t = t0;
    do {
      fn();
      ++calls;
      t = Now();
    } while (t - t0 < seconds);
    per_call.push_back((t - t0) / static_cast<double>(calls));
  }
  std::sort(per_call.begin(), per_call.end());
  Stats s;
  const size_t n = per_call.size();
  s.median = n % 2 ? per_call[n / 2] : 0.5 * (per_call[n / 2 - 1] + per_call[n / 2]);
  s.min = per_call.front();
  s.max = per_call.back();
  return s;
}

template <typename T>
bool Load(const char* path, T* object) {
  ozz::io::File file(path, "rb");
  if (!file.opened()) {
    std::fprintf(stderr, "error: %s: cannot open\n", path);
    return false;
  }
  ozz::io::IArchive archive(&file);
  if (!archive.TestTag<T>()) {
    std::fprintf(stderr, "error: %s: not the expected ozz archive\n", path);
    return false;
  }
  archive >> *object;
  return true;
}

// ------------------------------------------------------------------ characters

struct Character {
  explicit Character(const ozz::animation::Skeleton& skeleton)
      : context(skeleton.num_joints()),
        locals(static_cast<size_t>(skeleton.num_soa_joints())),
        models(static_cast<size_t>(skeleton.num_joints())),
        skin(static_cast<size_t>(skeleton.num_joints())) {}
  ozz::animation::SamplingJob::Context context;
  std::vector<ozz::math::SoaTransform> locals;
  std::vector<ozz::math::Float4x4> models;
  std::vector<ozz::math::Float4x4> skin;
  float time = 0;  // seconds into the clip
};

struct Scene {
  ozz::animation::Skeleton skeleton;
  ozz::animation::Animation animation;
  std::vector<ozz::math::Float4x4> inverse_rest;  // inverse(rest model[j])
  std::vector<std::unique_ptr<Character>> characters;
  float step = 1.0f / 60.0f;
  bool failed = false;
};

bool Pose(const Scene& s, Character& c) {
  ozz::animation::SamplingJob sampling;
  sampling.animation = &s.animation;
  sampling.context = &c.context;
  sampling.ratio = c.time / s.animation.duration();
  sampling.output = ozz::make_span(c.locals);
  ozz::animation::LocalToModelJob ltm;
  ltm.skeleton = &s.skeleton;
  ltm.input = ozz::make_span(c.locals);
  ltm.output = ozz::make_span(c.models);
  if (!sampling.Run() || !ltm.Run()) return false;
  for (size_t j = 0; j < c.models.size(); ++j) c.skin[j] = c.models[j] * s.inverse_rest[j];
  return true;
}

void Advance(const Scene& s, Character& c) {
  const float d = s.animation.duration();
  c.time += s.step;
  if (c.time >= d) c.time = std::fmod(c.time, d);
}

bool Frame(Scene& s, size_t first, size_t end) {
  bool ok = true;
  for (size_t i = first; i < end; ++i) {
    Character& c = *s.characters[i];
    Advance(s, c);
    ok &= Pose(s, c);
  }
  return ok;
}

void MakeCharacters(Scene& s, size_t count) {
  s.characters.clear();
  for (size_t i = 0; i < count; ++i) {
    s.characters.emplace_back(new Character(s.skeleton));
    s.characters.back()->time = s.animation.duration() * static_cast<float>(i) / static_cast<float>(count);
  }
}

bool InitScene(Scene& s) {
  // The rest pose's model matrices, inverted: the bind pose of a glTF skin
  // whose inverse bind matrices are the inverse of its rest pose.
  const int n = s.skeleton.num_joints();
  std::vector<ozz::math::Float4x4> rest(static_cast<size_t>(n));
  ozz::animation::LocalToModelJob ltm;
  ltm.skeleton = &s.skeleton;
  ltm.input = s.skeleton.joint_rest_poses();
  ltm.output = ozz::make_span(rest);
  if (!ltm.Run()) return false;
  s.inverse_rest.resize(static_cast<size_t>(n));
  for (int j = 0; j < n; ++j) s.inverse_rest[static_cast<size_t>(j)] = ozz::math::Invert(rest[static_cast<size_t>(j)]);
  return true;
}

// ------------------------------------------------------------------ threads (cna_crowd's scheme)

class Pool {
 public:
  Pool(Scene& s, unsigned threads) : scene_(s) {
    for (unsigned t = 1; t < threads; ++t) workers_.emplace_back([this] { Work(); });
  }
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      quit_ = true;
    }
    start_.notify_all();
    for (auto& w : workers_) w.join();
  }
  void RunFrame() {
    next_.store(0);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++generation_;
      done_ = 0;
    }
    start_.notify_all();
    Chunks();
    std::unique_lock<std::mutex> lock(mutex_);
    finished_.wait(lock, [this] { return done_ == workers_.size(); });
  }

 private:
  enum { kChunk = 16 };
  void Chunks() {
    const size_t n = scene_.characters.size();
    for (;;) {
      const size_t first = next_.fetch_add(kChunk);
      if (first >= n) break;
      if (!Frame(scene_, first, std::min(n, first + kChunk))) scene_.failed = true;
    }
  }
  void Work() {
    uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        start_.wait(lock, [&] { return quit_ || generation_ != seen; });
        if (quit_) return;
        seen = generation_;
      }
      Chunks();
      {
        std::lock_guard<std::mutex> lock(mutex_);
        ++done_;
      }
      finished_.notify_one();
    }
  }
  Scene& scene_;
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable start_, finished_;
  uint64_t generation_ = 0;
  size_t done_ = 0;
  bool quit_ = false;
  char pad_before_[64];
  std::atomic<size_t> next_{0};
  char pad_after_[64];
};

// bench/peers/player_pair.cpp includes this file for its characters (above), without the
// modes and main.
#ifndef OZZ_DRIVER_NO_MAIN
// ------------------------------------------------------------------ modes

Stats MeasurePlayers(Scene& s, size_t count, unsigned threads, int runs, double seconds) {
  MakeCharacters(s, count);
  if (threads <= 1) return Measure([&] { s.failed |= !Frame(s, 0, count); }, runs, seconds);
  Pool pool(s, threads);
  return Measure([&] { pool.RunFrame(); }, runs, seconds);
}

int RunSkinning(Scene& s, const std::vector<int>& parts, int runs, double seconds) {
  MakeCharacters(s, 1);
  Character& c = *s.characters[0];
  c.time = 0.5f * s.animation.duration();
  if (!Pose(s, c)) return 1;
  const int joints = s.skeleton.num_joints();
  struct Part {
    int vertices;
    std::vector<float> positions, normals, weights, out_positions, out_normals;
    std::vector<uint16_t> indices;
  };
  std::vector<Part> ps;
  size_t total = 0;
  for (size_t p = 0; p < parts.size(); ++p) {
    Part part;
    const int n = parts[p];
    part.vertices = n;
    part.positions.resize(3 * static_cast<size_t>(n));
    part.normals.resize(3 * static_cast<size_t>(n));
    part.out_positions.resize(3 * static_cast<size_t>(n));
    part.out_normals.resize(3 * static_cast<size_t>(n));
    part.weights.resize(3 * static_cast<size_t>(n), 0.25f);  // 4 influences: ozz stores 3 weights
    part.indices.resize(4 * static_cast<size_t>(n));
    for (int v = 0; v < n; ++v) {
      const size_t vi = static_cast<size_t>(v);
      for (int k = 0; k < 3; ++k) {
        part.positions[3 * vi + static_cast<size_t>(k)] = 0.01f * static_cast<float>((v * (k + 3)) % 97);
        part.normals[3 * vi + static_cast<size_t>(k)] = k == 1 ? 1.0f : 0.0f;
      }
      for (int k = 0; k < 4; ++k)
        part.indices[4 * vi + static_cast<size_t>(k)] =
            static_cast<uint16_t>((static_cast<size_t>(v) * 7 + static_cast<size_t>(k) * 11 + p) %
                                  static_cast<size_t>(joints));
    }
    total += static_cast<size_t>(n);
    ps.push_back(std::move(part));
  }
  bool ok = true;
  auto skin_all = [&] {
    for (Part& part : ps) {
      ozz::geometry::SkinningJob job;
      job.vertex_count = part.vertices;
      job.influences_count = 4;
      job.joint_matrices = ozz::make_span(c.skin);
      job.joint_indices = ozz::make_span(part.indices);
      job.joint_indices_stride = 4 * sizeof(uint16_t);
      job.joint_weights = ozz::make_span(part.weights);
      job.joint_weights_stride = 3 * sizeof(float);
      job.in_positions = ozz::make_span(part.positions);
      job.in_positions_stride = 3 * sizeof(float);
      job.in_normals = ozz::make_span(part.normals);
      job.in_normals_stride = 3 * sizeof(float);
      job.out_positions = ozz::make_span(part.out_positions);
      job.out_positions_stride = 3 * sizeof(float);
      job.out_normals = ozz::make_span(part.out_normals);
      job.out_normals_stride = 3 * sizeof(float);
      ok &= job.Run();
    }
  };
  const Stats st = Measure(skin_all, runs, seconds);
  if (!ok) {
    std::fprintf(stderr, "error: SkinningJob refused its inputs\n");
    return 1;
  }
  const double n = static_cast<double>(total);
  std::printf(
      "{\"side\":\"ozz\",\"skinning\":true,\"influences\":4,\"vertices\":%zu,\"parts\":%zu,\"joints\":%d,"
      "\"ns_per_vertex\":%.3f,\"ns_per_vertex_min\":%.3f,\"ns_per_vertex_max\":%.3f}\n",
      total, ps.size(), joints, st.median * 1e9 / n, st.min * 1e9 / n, st.max * 1e9 / n);
  return 0;
}

void Usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s --skeleton S.ozz --animation A.ozz [--characters N] [--threads T] "
               "[--seconds S] [--runs R]\n"
               "       %s --skinning --parts N,N,... --skeleton S.ozz --animation A.ozz "
               "[--seconds S] [--runs R]\n",
               argv0, argv0);
}

}  // namespace

int main(int argc, char** argv) {
  const char* skeleton_path = nullptr;
  const char* animation_path = nullptr;
  size_t characters = 1000;
  unsigned threads = 1;
  double seconds = 0.5;
  int runs = 5;
  bool skinning = false;
  std::vector<int> parts;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has = i + 1 < argc;
    if (a == "--skinning") {
      skinning = true;
    } else if (a == "--skeleton" && has) {
      skeleton_path = argv[++i];
    } else if (a == "--animation" && has) {
      animation_path = argv[++i];
    } else if (a == "--characters" && has) {
      characters = std::strtoul(argv[++i], nullptr, 10);
    } else if (a == "--threads" && has) {
      threads = static_cast<unsigned>(std::strtoul(argv[++i], nullptr, 10));
    } else if (a == "--seconds" && has) {
      seconds = std::atof(argv[++i]);
    } else if (a == "--runs" && has) {
      runs = std::atoi(argv[++i]);
    } else if (a == "--parts" && has) {
      for (char* p = argv[++i]; *p;) {
        char* end = nullptr;
        const long v = std::strtol(p, &end, 10);
        if (end == p || v <= 0) break;
        parts.push_back(static_cast<int>(v));
        p = *end == ',' ? end + 1 : end;
      }
    } else {
      Usage(argv[0]);
      return 2;
    }
  }
  if (!skeleton_path || !animation_path || characters == 0 || threads == 0 || !(seconds > 0) ||
      (skinning && parts.empty())) {
    Usage(argv[0]);
    return 2;
  }
  Scene s;
  if (!Load(skeleton_path, &s.skeleton) || !Load(animation_path, &s.animation)) return 1;
  if (s.animation.num_tracks() != s.skeleton.num_joints()) {
    std::fprintf(stderr, "error: %s: %d tracks for a skeleton of %d joints\n", animation_path,
                 s.animation.num_tracks(), s.skeleton.num_joints());
    return 1;
  }
  if (!InitScene(s)) return 1;
  if (skinning) return RunSkinning(s, parts, runs, seconds);

  const Stats many = MeasurePlayers(s, characters, threads, runs, seconds);
  Stats one;
  if (threads == 1) one = MeasurePlayers(s, 1, 1, runs, seconds);
  if (s.failed) {
    std::fprintf(stderr, "error: a sampling or local-to-model job failed\n");
    return 1;
  }
  const double n = static_cast<double>(characters);
  std::printf(
      "{\"side\":\"ozz\",\"joints\":%d,\"duration_s\":%.4f,\"characters\":%zu,\"threads\":%u,"
      "\"ns_per_character_frame\":%.2f,\"ns_per_character_frame_min\":%.2f,"
      "\"ns_per_character_frame_max\":%.2f",
      s.skeleton.num_joints(), static_cast<double>(s.animation.duration()), characters, threads,
      many.median * 1e9 / n, many.min * 1e9 / n, many.max * 1e9 / n);
  if (threads == 1)
    std::printf(",\"one_character\":{\"ns_per_character_frame\":%.2f,\"ns_per_character_frame_min\":%.2f,"
                "\"ns_per_character_frame_max\":%.2f}",
                one.median * 1e9, one.min * 1e9, one.max * 1e9);
  std::printf("}\n");
  return 0;
}
#else
}  // namespace
#endif  // OZZ_DRIVER_NO_MAIN
