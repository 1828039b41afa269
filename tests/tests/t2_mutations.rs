//! Typed decode never loses bytes: real Scene, DllDirectory, ClassDirectory3 and Config
//! streams are mutated inside the spans the typed model owns (so the mutations land on
//! typed chunks: counts, sizes of values, reference payloads, names, headers); whenever
//! the mutated stream still parses as a chunk tree, the typed rebuild — with the
//! regeneration proof — must reproduce it exactly (typed or degraded, never different,
//! never a panic).

use pmcore::chunk::{parse_stream, write_stream};
use pmcore::model::directory::{Directories, CLASS_DIRECTORY_STREAMS};
use pmcore::model::file::{StreamModel, TypedStream};
use pmcore::model::part::Ctx;
use pmcore::model::scene::SceneModel;
use pmcore::model::streams::{RunModel, StreamType};
use pmcore::{classify, Input, MaxFile};

struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

fn decode(name: &str, data: &[u8], dirs: &Directories) -> Option<TypedStream> {
    let tree = parse_stream(name, data).ok()?;
    let mut ctx = Ctx::new(name, true);
    let len = data.len() as u64;
    let model = match StreamType::of(name) {
        StreamType::Scene => StreamModel::Scene(SceneModel::decode(&tree, len, dirs, None, &mut ctx, |_, _| {})),
        kind => StreamModel::Run(RunModel::decode(kind, &tree, len, &mut ctx)),
    };
    Some(TypedStream { index: 0, name: name.into(), len, model, claims: ctx.claims })
}

#[test]
fn mutations_of_typed_chunks_rebuild_exactly_or_degrade() {
    let Some(corpus) = pmtests::public_corpus() else {
        return;
    };
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    let (mut tried, mut parsed, mut degraded_runs) = (0u64, 0u64, 0u64);
    for path in pmtests::corpus_files(&corpus).into_iter().take(12) {
        let Input::Ole(ole) = classify(&std::fs::read(&path).unwrap()) else { continue };
        let file = MaxFile::new(ole);
        let dll = file.tree_of("DllDirectory").unwrap_or_default();
        let class = CLASS_DIRECTORY_STREAMS.iter().find_map(|n| file.tree_of(n)).unwrap_or_default();
        let dirs = Directories::read(&dll, &class);
        for name in ["Scene", "DllDirectory", "ClassDirectory3", "Config"] {
            let data = file.data(file.index_of(name).unwrap()).unwrap();
            let spans = decode(name, data, &dirs).unwrap().claims.spans().to_vec();
            for _ in 0..40 {
                let mut mutated = data.to_vec();
                for _ in 0..1 + rng.below(3) {
                    let span = spans[rng.below(spans.len() as u64) as usize];
                    let at = (span.start + rng.below(span.len())) as usize;
                    mutated[at] = rng.next() as u8;
                }
                tried += 1;
                let Some(stream) = decode(name, &mutated, &dirs) else { continue };
                parsed += 1;
                let built = stream.build(&stream.scribbled(&mutated)).unwrap();
                let expected = if built.normalizations.is_empty() {
                    mutated.clone()
                } else {
                    let tree = parse_stream(name, &mutated).unwrap();
                    write_stream(&pmcore::model::normalize::expected_scene(&tree)).unwrap()
                };
                assert!(
                    built.bytes == expected,
                    "{}: {name}: a mutated stream did not rebuild exactly",
                    path.display()
                );
                let degraded = match &stream.model {
                    StreamModel::Scene(s) => s.degraded().count(),
                    StreamModel::Run(r) => r.degraded.len(),
                };
                degraded_runs += u64::from(degraded > 0);
            }
        }
    }
    println!("{tried} mutated streams, {parsed} still parse, {degraded_runs} of those degrade something");
    assert!(parsed > 100 && degraded_runs > 0, "the mutations must exercise typed decodes and degrade paths");
}
