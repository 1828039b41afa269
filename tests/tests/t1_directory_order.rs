//! Regression for the `ole_open` fuzz finding: a directory entry whose name length was
//! widened over its NUL padding (`DllDirectory\0\0\0` there, `VideoPostQueue\0\0\0` here) leaves the source directory out of
//! CFB sort order. The rewrite cannot keep a broken order: T1 reports the one whitelisted
//! normalization on `@streams`, and every stream's bytes still compare equal. The input is
//! built here from scratch (never a copy of a shared file) and also kept, as generated, in
//! `fuzz/regressions/ole_open/` for the replay test.

use pmcore::verify::{t1, Verdict};
use pmcore::{classify, Input, MaxFile};

/// A small valid file with a real file's eleven stream names, whose `VideoPostQueue`
/// directory entry name is then widened over 3 units of its NUL padding. (`cfb` checks
/// the order of tree neighbours only, so where the entry sits decides whether it notices;
/// here, as in the fuzz finding, it does not.)
pub fn nul_padded_name_file() -> Vec<u8> {
    let names = [
        "Scene",
        "Config",
        "ClassData",
        "DllDirectory",
        "SaveConfigData",
        "VideoPostQueue",
        "ClassDirectory3",
        "FileAssetMetaData3",
        "\u{5}SummaryInformation",
        "ScriptedCustAttribDefs",
        "\u{5}DocumentSummaryInformation",
    ];
    // A leaf chunk 0x2090 with a 4-byte payload, written byte by byte.
    let chunk: &[u8] = &[0x90, 0x20, 0x0A, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00];
    let mut bytes = pmcore::container::write(&[0; 16], names.iter().map(|n| (*n, chunk))).unwrap();
    // The 128-byte directory entry named "VideoPostQueue" (UTF-16): widen its name-length
    // field (offset 64, bytes including the terminator) from 30 to 36.
    let name: Vec<u8> = "VideoPostQueue".encode_utf16().flat_map(|u| u.to_le_bytes()).collect();
    let at = (0..bytes.len() - 128)
        .step_by(128)
        .find(|&o| bytes[o..].starts_with(&name) && bytes[o + 64..o + 66] == [30, 0])
        .expect("directory entry of VideoPostQueue");
    bytes[at + 64..at + 66].copy_from_slice(&36u16.to_le_bytes());
    bytes
}

#[test]
fn out_of_order_directory_is_a_whitelisted_normalization_not_a_fail() {
    let bytes = nul_padded_name_file();
    let Input::Ole(ole) = classify(&bytes) else { panic!("still an OLE file") };
    assert!(ole.streams.iter().any(|s| s.name == "VideoPostQueue\0\0\0"), "{:?}", ole.streams);
    let file = MaxFile::new(ole);
    let verdicts = t1::run(&file, |_| {});
    for v in &verdicts {
        match (&*v.stream, &v.verdict) {
            ("@streams", Verdict::Normalized { reason }) => {
                assert_eq!(reason, pmcore::model::normalize::DIRECTORY_RESORTED)
            }
            ("@streams", other) => panic!("@streams: {other:?}"),
            (_, Verdict::Pass { .. }) => {}
            (s, other) => panic!("{s}: {other:?}"),
        }
    }
    pmtests::fuzz_targets::ole_open(&bytes);
}

#[test]
fn regression_input_on_disk_is_the_generated_one() {
    let path = pmtests::workspace_root().join("fuzz/regressions/ole_open/nul-padded-directory-name.max");
    let on_disk = std::fs::read(&path).expect("committed regression input");
    assert_eq!(on_disk, nul_padded_name_file(), "regenerate {} from this test", path.display());
}

/// `PMFARM_WRITE_REGRESSIONS=1 cargo test --test t1_directory_order` rewrites the input.
#[test]
fn write_regression_input_when_asked() {
    if std::env::var_os("PMFARM_WRITE_REGRESSIONS").is_some() {
        let path = pmtests::workspace_root().join("fuzz/regressions/ole_open/nul-padded-directory-name.max");
        std::fs::write(path, nul_padded_name_file()).unwrap();
    }
}
