//! `--workspace DIR --graphics ROOT --process NAME` enumerates exactly as the Ryzom build
//! pipeline does, on a hand-made workspace that uses every construct the evaluator
//! supports (string and list literals, `=`, `+=`, `+` on strings and lists, names
//! assigned earlier, comments, skipped imports, `--define` names, nested lists): each
//! listed directory read non-recursively, `.max` case-insensitively, sorted. Undefined
//! names and unsupported constructs are errors naming file and line (exit 2).

mod farm_support;
use farm_support::*;
use std::path::Path;

const CHARACTERS: &str = r#"# Directories of the characters project
import os
from buildsite import *

EcosystemName = "common"
CommonName = 'characters'
CommonPath = EcosystemName + "/" + CommonName   # names assigned earlier

SkelSourceDirectories = [ ]
SkelSourceDirectories += [ "stuff/fyros/agents/actors/male/animation/skeletons" ]
SkelSourceDirectories += [
	"stuff/" + CommonName + "/skel_upper",  # expression in a list
	"stuff/tryker/skeletons",
]
SkelSourceDirectories += [ "missing/dir" ]
AnimSourceDirectories = [ "anim/" + "only" ]
CopyDirectSourceDirectories = [ ]
CopyDirectSourceDirectories += [ DataCommonDirectory ]
"#;

const FAUNA: &str = r#"from buildsite import *
FaunaRoot = "stuff/fauna"
SkelSourceDirectories = [ FaunaRoot + "/skeletons" ] + [ [ SkelExtraDirectory ], "stuff/fauna/nested" ]
ShapeSourceDirectories = [ "stuff/fauna/shapes" ]
"#;

fn put(root: &Path, rel: &str, bytes: &[u8]) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, bytes).unwrap();
}

#[test]
fn workspace_enumeration_follows_the_build_pipeline() {
    let t = tempfile::tempdir().unwrap();
    let demo = demo_corpus(t.path());
    let scene = std::fs::read(demo.join("max2016_box.max")).unwrap();
    let ws = t.path().join("workspace");
    put(&ws, "common/characters/directories.py", CHARACTERS.as_bytes());
    put(&ws, "common/fauna/directories.py", FAUNA.as_bytes());
    let g = t.path().join("graphics");
    for rel in [
        "stuff/fyros/agents/actors/male/animation/skeletons/fy_hom_skel.max",
        "stuff/fyros/agents/actors/male/animation/skeletons/FY_HOF_SKEL.MAX",
        "stuff/fyros/agents/actors/male/animation/skeletons/deeper/not_listed.max",
        "stuff/characters/skel_upper/upper.Max",
        "stuff/tryker/skeletons/tr_skel.max",
        "stuff/fauna/skeletons/chicken.max",
        "stuff/fauna/extra/extra.max",
        "stuff/fauna/nested/nested.max",
        "stuff/fauna/shapes/not_skel.max",
        "anim/only/not_skel.max",
    ] {
        put(&g, rel, &scene);
    }
    put(&g, "stuff/tryker/skeletons/readme.txt", b"not a scene");

    let out_dir = t.path().join("out");
    let gates = gates_dir(t.path(), "");
    let out = Farm::new(&["run", "--workspace", s(&ws), "--graphics", s(&g), "--process", "skel"])
        .args(["--define", "SkelExtraDirectory=stuff/fauna/extra", "--define", "DataCommonDirectory=data/common"])
        .args(["--out", s(&out_dir), "--gates", s(&gates), "--no-report"])
        .output();
    assert_exit(&out, 0);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let warning = format!(
        "pmfarm: warning: source directory {} (missing/dir): No such file or directory (os error 2)\n",
        g.join("missing/dir").display()
    );
    assert!(stderr.contains(&warning), "a listed but missing directory is reported: {stderr}");
    let paths: Vec<String> = results(&out_dir).into_keys().collect();
    assert_eq!(
        paths,
        vec![
            "stuff/characters/skel_upper/upper.Max",
            "stuff/fauna/extra/extra.max",
            "stuff/fauna/nested/nested.max",
            "stuff/fauna/skeletons/chicken.max",
            "stuff/fyros/agents/actors/male/animation/skeletons/FY_HOF_SKEL.MAX",
            "stuff/fyros/agents/actors/male/animation/skeletons/fy_hom_skel.max",
            "stuff/tryker/skeletons/tr_skel.max",
        ]
    );
    assert!(statuses(&out_dir).values().all(|s| s == "pass"));

    // Without the define, the skel list references an undefined name: an error naming
    // the file and line, never a silently shorter list.
    let out = Farm::new(&["run", "--workspace", s(&ws), "--graphics", s(&g), "--process", "skel"])
        .args(["--define", "DataCommonDirectory=data/common", "--out", s(&out_dir), "--gates", s(&gates)])
        .output();
    assert_exit(&out, 2);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("fauna/directories.py:3: `SkelExtraDirectory` is not defined"), "{stderr}");

    // An unsupported construct anywhere is an error with file and line.
    put(&ws, "common/sky/directories.py", b"SkelSourceDirectories = [ ]\nSkelSourceDirectories += os.listdir('x')\n");
    let out = Farm::new(&["run", "--workspace", s(&ws), "--graphics", s(&g), "--process", "skel"])
        .args(["--define", "SkelExtraDirectory=x", "--define", "DataCommonDirectory=y"])
        .args(["--out", s(&out_dir), "--gates", s(&gates)])
        .output();
    assert_exit(&out, 2);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("sky/directories.py:2:"), "{stderr}");
}

#[test]
fn manifest_enumeration_lists_exactly_its_files() {
    let t = tempfile::tempdir().unwrap();
    let demo = demo_corpus(t.path());
    let gates = gates_dir(t.path(), "");
    let list = demo.join("list.txt");
    std::fs::write(&list, "# three of the demo files\nmax9_box.max\n\nempty.max\nmax2016_mapext.max\n").unwrap();
    let out_dir = t.path().join("out");
    let out =
        Farm::new(&["run", "--manifest", s(&list), "--out", s(&out_dir), "--gates", s(&gates), "--no-report"]).output();
    assert_exit(&out, 0);
    let paths: Vec<String> = results(&out_dir).into_keys().collect();
    assert_eq!(paths, vec!["empty.max", "max2016_mapext.max", "max9_box.max"]);

    let tsv = demo.join("manifest.tsv");
    std::fs::write(&tsv, "sha\tfile\tnote\nx\tmax2010_box.max\tfirst\ny\tcorrupt.max\tsecond\n").unwrap();
    let out =
        Farm::new(&["run", "--manifest", s(&tsv), "--out", s(&out_dir), "--gates", s(&gates), "--no-report"]).output();
    assert_exit(&out, 0);
    let paths: Vec<String> = results(&out_dir).into_keys().collect();
    assert_eq!(paths, vec!["corrupt.max", "max2010_box.max"]);

    std::fs::write(&list, "max9_box.max\nnot_there.max\n").unwrap();
    let out = Farm::new(&["run", "--manifest", s(&list), "--out", s(&out_dir), "--gates", s(&gates)]).output();
    assert_exit(&out, 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("list.txt:2:"), "the bad line is named");
}
