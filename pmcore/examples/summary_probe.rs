//! Prints the summary T3 per section for each file given (investigation aid).
fn main() {
    for p in std::env::args().skip(1) {
        let Ok(b) = std::fs::read(&p) else { continue };
        let pmcore::Input::Ole(ole) = pmcore::classify(&b) else { continue };
        let file = pmcore::MaxFile::new(ole);
        let max = pmcore::facts::doc_summary(&file).unwrap_or_default();
        let ours = pmcore::export::summary::account(&file);
        for v in pmcore::export::summary::compare(&max, ours.as_ref()) {
            let o = match &v.outcome {
                pmcore::export::summary::SectionOutcome::Pass => "pass".to_string(),
                pmcore::export::summary::SectionOutcome::Fail { first_difference } => {
                    format!("FAIL {first_difference}")
                }
                pmcore::export::summary::SectionOutcome::Skip { reason } => format!("skip {reason}"),
            };
            println!("{p}\t{}\t{o}", v.section);
        }
    }
}
