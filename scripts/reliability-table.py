#!/usr/bin/env python3
"""Regenerates the validator table of docs/reliability.md.

For every glTF-Validator test model under tests/data/corpus/invalid/validator
(each has the validator's own FILE.report.json), runs `cna inspect --json FILE`
and compares: a file whose report has *errors relevant to what the reader
reads* and that `cna inspect` nevertheless accepts (exit 0) is listed with the
reason (the goal is none). Also lists, for the record, how every file with
relevant errors was refused.

Relevant = severity 0 (error) with a JSON pointer into accessors, buffers,
bufferViews, nodes, meshes, skins, animations, scene/scenes or asset, or with
no pointer (JSON syntax, GLB container).

Usage:
  scripts/reliability-table.py [--cna build/cna] [--update docs/reliability.md]
Without --update the markdown goes to stdout. With it, the text between
<!-- validator-table:begin --> and <!-- validator-table:end --> is replaced.
Needs only Python 3's standard library.
"""
import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VALIDATOR_DIR = os.path.join("tests", "data", "corpus", "invalid", "validator")
RELEVANT_TOP = {"accessors", "buffers", "bufferViews", "nodes", "meshes", "skins",
                "animations", "scene", "scenes", "asset"}
BEGIN = "<!-- validator-table:begin -->"
END = "<!-- validator-table:end -->"

# Why an error the validator reports may be accepted on purpose. Keyed by the
# validator's code; a code not here has no reason: the reader should refuse it.
MINMAX = ("accessor min/max are declarations the reader does not use; values are read as stored "
          "(a candidate for a diagnostic)")
REASONS = {
    "ACCESSOR_MIN_MISMATCH": MINMAX,
    "ACCESSOR_MAX_MISMATCH": MINMAX,
    "ACCESSOR_ELEMENT_OUT_OF_MIN_BOUND": MINMAX,
    "ACCESSOR_ELEMENT_OUT_OF_MAX_BOUND": MINMAX,
    "ACCESSOR_WEIGHTS_NON_NORMALIZED": "skin weights not summing to one are loaded and "
                                       "reported as a diagnostic (weights-not-normalized), "
                                       "not refused",
    "ACCESSOR_ANIMATION_SAMPLER_OUTPUT_NON_NORMALIZED_QUATERNION":
        "non-unit quaternion keys are loaded and reported as a diagnostic (quaternion-not-unit), "
        "not refused",
    "ROTATION_NON_UNIT": "a non-unit node rotation is loaded and reported as a diagnostic "
                         "(quaternion-not-unit), not refused",
    "ACCESSOR_VECTOR3_NON_UNIT": "vertex values, not structure: the length of normals/tangents is "
                                 "not checked (a candidate for a diagnostic)",
    "ACCESSOR_NON_CLAMPED": "vertex values, not structure: colours outside [0, 1] are not checked "
                            "(a candidate for a diagnostic)",
    "ACCESSOR_INVALID_FLOAT": "vertex values, not structure: NaN/Inf in a vertex attribute a mesh uses "
                              "is the diagnostic value-not-finite (in node transforms, inverse bind "
                              "matrices and animation times and outputs it is refused); an accessor "
                              "nothing uses is not read",
    "MESH_PRIMITIVE_TOO_FEW_TEXCOORDS": "a material samples a TEXCOORD set the primitive lacks: materials "
                                        "are outside what the reader validates against the meshes, and "
                                        "skinning, animation and morphing never read texture coordinates; "
                                        "reported as the diagnostic texcoord-missing",
    "MESH_PRIMITIVE_POSITION_ACCESSOR_WITHOUT_BOUNDS": "POSITION min/max protect nothing the reader or "
                                                       "the importer computes (the bounds come from the "
                                                       "data); reported as the diagnostic "
                                                       "position-bounds-missing",
    "EMPTY_ENTITY": "an empty top-level array means what an absent one does; read as absent and "
                    "reported as the diagnostic empty-array (empty node.children, scene.nodes, "
                    "skin.joints, ... are still refused)",
    "ANIMATION_SAMPLER_INPUT_ACCESSOR_WITHOUT_BOUNDS": "the key times are checked whatever min/max say "
                                                       "(finite, non-negative, increasing); the missing "
                                                       "bounds are computed from them and reported as the "
                                                       "diagnostic accessor-min-max-computed",
    "SKIN_SKELETON_INVALID": "skin.skeleton is a hint nothing is computed from; one that is not a "
                             "common root of the joints is ignored (read as absent) and reported as "
                             "the diagnostic skin-skeleton-hint-ignored",
    "MESH_PRIMITIVE_NO_TANGENT_SPACE": "tangents are required only by an optional extension the reader "
                                       "ignores (extension-ignored)",
}
# Errors inside an optional extension's own object are accepted when the
# reader ignores that extension (it reports extension-ignored).
EXTENSION_REASON = "inside an optional extension the reader ignores (extension-ignored diagnostic)"
# A KHR_animation_pointer channel whose pointer the reader cannot follow is
# ignored with a diagnostic, as three.js skips a channel it cannot bind.
POINTER_REASON = ("a KHR_animation_pointer channel the reader cannot follow is ignored and reported "
                  "(channel-ignored or animation-pointer-unsupported)")


def relevant_errors(report):
    out = []
    for m in report.get("issues", {}).get("messages", []):
        if m.get("severity") != 0:
            continue
        pointer = m.get("pointer") or ""
        top = pointer.split("/")[1] if pointer.startswith("/") and len(pointer) > 1 else ""
        if top == "" or top in RELEVANT_TOP:
            out.append((m.get("code", "?"), pointer or "(document)", m.get("message", "")))
    return out


def inspect(cna, path):
    try:
        p = subprocess.run([cna, "inspect", "--json", path], capture_output=True, timeout=30)
    except subprocess.TimeoutExpired:
        return "timeout", None, ""
    err = p.stderr.decode("utf-8", "replace").strip()
    if p.returncode == 0:
        try:
            return "accepted", json.loads(p.stdout), err
        except ValueError:
            return "bad-json", None, err
    if p.returncode == 1:
        return "refused", None, err
    return "exit %d" % p.returncode, None, err


def md_escape(s):
    return s.replace("|", "\\|").replace("\n", " ")


def short_error(err, path):
    prefix = "error: %s: " % path
    return err[len(prefix):] if err.startswith(prefix) else err


def build(cna):
    rows_accepted, rows_refused, anomalies = [], [], []
    n_files = n_errors = n_relevant = 0
    other_accepted = {}
    base = os.path.join(ROOT, VALIDATOR_DIR)
    for dirpath, _, files in sorted(os.walk(base)):
        for f in sorted(files):
            if not (f.endswith(".gltf") or f.endswith(".glb")):
                continue
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, base)
            n_files += 1
            with open(path + ".report.json", encoding="utf-8") as fh:
                report = json.load(fh)
            has_errors = report.get("issues", {}).get("numErrors", 0) > 0
            n_errors += has_errors
            errors = relevant_errors(report)
            status, doc, err = inspect(cna, os.path.relpath(path, ROOT))
            if status not in ("accepted", "refused"):
                anomalies.append((rel, status, err))
                continue
            if not errors:
                if has_errors and status == "accepted":
                    tops = sorted({(m.get("pointer") or "/?").split("/")[1]
                                   for m in report["issues"]["messages"] if m.get("severity") == 0})
                    for t in tops:
                        other_accepted[t] = other_accepted.get(t, 0) + 1
                continue
            n_relevant += 1
            codes = sorted({c for c, _, _ in errors})
            if status == "refused":
                rows_refused.append((rel, ", ".join(codes), short_error(err, os.path.relpath(path, ROOT))))
            else:
                diags = ", ".join("%s x%d" % (d["code"], d["count"]) for d in doc.get("diagnostics", []))
                ignored = any(d["code"] == "extension-ignored" for d in doc.get("diagnostics", []))
                in_ext = {c for c, p, _ in errors if "/extensions/" in p}
                pure_ext = {c for c in in_ext if all("/extensions/" in p for c2, p, _ in errors if c2 == c)}
                pointer_ignored = any(d["code"] in ("channel-ignored", "animation-pointer-unsupported")
                                      for d in doc.get("diagnostics", []))
                in_pointer = {c for c in codes
                              if all("/extensions/KHR_animation_pointer" in p for c2, p, _ in errors if c2 == c)}
                reasons = [EXTENSION_REASON if ignored and c in pure_ext else
                           POINTER_REASON if pointer_ignored and c in in_pointer else REASONS.get(c) for c in codes]
                if all(reasons):
                    reason = "; ".join(sorted(set(reasons)))
                else:
                    missing = [c for c, r in zip(codes, reasons) if not r]
                    reason = "**none: the reader should refuse this** (%s)" % ", ".join(missing)
                detail = "; ".join("%s at %s" % (c, p) for c, p, _ in errors[:4])
                if len(errors) > 4:
                    detail += "; ... (%d in all)" % len(errors)
                rows_accepted.append((rel, detail, diags or "-", reason))

    try:
        reader = subprocess.run(["git", "log", "-1", "--format=%h", "--", "src/gltf", "include/cna/gltf.h"],
                                capture_output=True, text=True, cwd=ROOT).stdout.strip() or "unknown"
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "src/gltf", "include/cna/gltf.h"],
                               capture_output=True, text=True, cwd=ROOT).stdout.strip()
        if dirty:
            reader += " plus uncommitted changes"
    except OSError:
        reader = "unknown"
    lines = []
    lines.append("Reader: commit %s (the last one touching `src/gltf/`)." % reader)
    lines.append("")
    lines.append("Generated by `scripts/reliability-table.py --cna %s` over `%s/` "
                 "(%d model files, each with the validator's `.report.json`)." %
                 (os.path.relpath(cna, ROOT) if os.path.isabs(cna) else cna, VALIDATOR_DIR, n_files))
    lines.append("")
    lines.append("- files whose report has errors: %d" % n_errors)
    no_reason = sum(1 for r in rows_accepted if r[3].startswith("**none"))
    lines.append("- files with errors relevant to what the reader reads: %d, of which refused: %d, "
                 "**accepted: %d** (%d with a reason below, **%d without: the reader should refuse "
                 "them**)" % (n_relevant, len(rows_refused), len(rows_accepted),
                              len(rows_accepted) - no_reason, no_reason))
    if other_accepted:
        lines.append("- files accepted whose errors are all outside what the reader validates, by "
                     "top-level property: " +
                     ", ".join("%s %d" % (k, v) for k, v in sorted(other_accepted.items())))
    if anomalies:
        lines.append("- **anomalies** (neither exit 0 nor exit 1): " +
                     "; ".join("%s: %s %s" % (r, s, md_escape(e)) for r, s, e in anomalies))
    lines.append("")
    lines.append("#### Accepted although the report has relevant errors")
    lines.append("")
    if rows_accepted:
        lines.append("| file | validator errors (code at pointer) | our diagnostics | reason |")
        lines.append("|---|---|---|---|")
        for r in rows_accepted:
            lines.append("| `%s` | %s | %s | %s |" % tuple(md_escape(x) for x in r))
    else:
        lines.append("None.")
    lines.append("")
    lines.append("<details><summary>Refused files with relevant errors, and our message "
                 "(%d)</summary>" % len(rows_refused))
    lines.append("")
    lines.append("| file | validator error codes | `cna inspect` message |")
    lines.append("|---|---|---|")
    for r in rows_refused:
        lines.append("| `%s` | %s | %s |" % tuple(md_escape(x) for x in r))
    lines.append("")
    lines.append("</details>")
    return "\n".join(lines) + "\n", no_reason, len(anomalies)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cna", default=os.path.join("build", "cna"), help="the cna executable")
    ap.add_argument("--update", metavar="MARKDOWN", help="replace the marked section of this file")
    args = ap.parse_args()
    os.chdir(ROOT)
    if not os.access(args.cna, os.X_OK):
        sys.exit("reliability-table: %s is not an executable (build the cna_tool target)" % args.cna)
    table, accepted, anomalies = build(args.cna)
    if args.update:
        with open(args.update, encoding="utf-8") as fh:
            text = fh.read()
        b, e = text.find(BEGIN), text.find(END)
        if b < 0 or e < b:
            sys.exit("reliability-table: %s lacks the %s / %s markers" % (args.update, BEGIN, END))
        text = text[:b + len(BEGIN)] + "\n" + table + text[e:]
        with open(args.update, "w", encoding="utf-8") as fh:
            fh.write(text)
    else:
        sys.stdout.write(table)
    print("reliability-table: %d accepted with relevant errors and no reason, %d anomalies" %
          (accepted, anomalies),
          file=sys.stderr)


if __name__ == "__main__":
    main()
