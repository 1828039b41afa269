//! Replays every input that once crashed a fuzz target (`fuzz/regressions/<target>/`)
//! through the same target body, on stable, as an ordinary test. Inputs there are
//! generated or minimised by us — never copies of shared files.

#[test]
fn fuzz_regression_corpus_replays_clean() {
    let root = pmtests::workspace_root().join("fuzz/regressions");
    let mut replayed = 0;
    for (name, body) in pmtests::fuzz_targets::TARGETS {
        let dir = root.join(name);
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries {
            let path = entry.expect("entry").path();
            if path.file_name().is_some_and(|n| n == ".gitkeep" || n == "README.md") {
                continue;
            }
            let data = std::fs::read(&path).expect("regression input readable");
            body(&data);
            replayed += 1;
        }
    }
    println!("fuzz regressions replayed: {replayed}");
}

#[test]
fn fuzz_bodies_accept_trivial_inputs() {
    for (_, body) in pmtests::fuzz_targets::TARGETS {
        for data in [
            &b""[..],
            b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1",
            b"version https://git-lfs.github.com/spec/v1\n",
            &[0u8; 600],
        ] {
            body(data);
        }
    }
}
