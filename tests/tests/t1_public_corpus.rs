//! T1 over every file of the public corpus, checked against the corpus manifest: the
//! three non-OLE inputs get their class; every real file passes T1 on every stream and
//! the CLSID; chunk-stream count and 6/14-byte header counts equal the manifest.

use pmcore::verify::{t1, Verdict};
use pmcore::{classify, facts::FileFacts, Input, MaxFile};

#[test]
fn t1_passes_on_every_stream_of_every_public_file() {
    let Some(corpus) = pmtests::public_corpus() else {
        return;
    };
    let manifest = pmtests::manifest(&corpus);
    let files = pmtests::corpus_files(&corpus);
    assert_eq!(files.len(), manifest.len(), "every manifest row has a file and vice versa");
    let (mut real, mut streams, mut bytes, mut chunk_streams) = (0, 0, 0u64, 0);
    let mut failures = Vec::new();
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let row = &manifest[&name];
        let data = std::fs::read(path).unwrap();
        let input = classify(&data);
        let expected_class = match name.split("__").next().unwrap() {
            "lfs_pointer" => "lfs-pointer",
            "empty" => "empty",
            "not_ole" => "not-ole",
            _ => "ole",
        };
        assert_eq!(input.class_name(), expected_class, "{name}");
        let Input::Ole(ole) = input else { continue };
        real += 1;
        let file = MaxFile::new(ole);
        let facts = FileFacts::of(&file);
        assert_eq!(facts.chunk_streams().to_string(), row["chunk_streams"], "{name}: chunk streams");
        assert_eq!(facts.headers_6.to_string(), row["headers_6"], "{name}: 6-byte headers");
        assert_eq!(facts.headers_14.to_string(), row["headers_14"], "{name}: 14-byte headers");
        let depth = facts.streams.iter().map(|s| s.max_depth).max().unwrap_or(0);
        assert_eq!(depth.to_string(), row["max_depth"], "{name}: deepest tree");
        assert_eq!(format!("0x{:04X}", facts.root_id.unwrap()), row["root_id"], "{name}: root id");
        chunk_streams += facts.chunk_streams();
        for v in t1::run(&file, |_| {}) {
            streams += 1;
            if let Verdict::Fail(m) = &v.verdict {
                failures.push(format!("{name}: {} {} at {} ({})", v.stream, m.kind, m.chunk_path, m.message));
            }
        }
        bytes += file.decoded_bytes();
    }
    println!("T1: {real} real files, {streams} stream verdicts, {chunk_streams} chunk streams, {bytes} decoded bytes checked");
    assert!(failures.is_empty(), "T1 failures:\n{}", failures.join("\n"));
    // Each file's chunk-stream count was checked against its manifest row above; together
    // they are the manifest's sum, and every row but the non-OLE inputs is a real file.
    let listed: usize = manifest.values().filter_map(|r| r["chunk_streams"].parse::<usize>().ok()).sum();
    assert_eq!(chunk_streams, listed, "the manifest's chunk streams, summed");
    assert_eq!(real, manifest.values().filter(|r| r["root_id"] != "n/a").count(), "every OLE row is a real file");
}
