fn main() {
    for p in std::env::args().skip(1) {
        let b = std::fs::read(&p).unwrap();
        if let pmcore::Input::Ole(f) = pmcore::classify(&b) {
            for name in ["\u{5}DocumentSummaryInformation", "\u{5}SummaryInformation"] {
                if let Some(s) = f.stream(name) {
                    let secs = pmcore::facts::property_set::parse(&s.bytes);
                    match secs {
                        Ok(secs) => {
                            println!(
                                "{p} {name:?}: {:?}",
                                pmcore::facts::property_set::headed_parts(&secs)
                                    .iter()
                                    .map(|(h, v)| (h, v.iter().take(4).collect::<Vec<_>>()))
                                    .collect::<Vec<_>>()
                            );
                            for s in &secs {
                                for pr in &s.properties {
                                    println!(
                                        "   {:x} {:?}",
                                        pr.id,
                                        format!("{:?}", pr.value).chars().take(150).collect::<String>()
                                    );
                                }
                            }
                        }
                        Err(e) => println!("{p} {name:?}: {e}"),
                    }
                }
            }
        }
    }
}
#[allow(dead_code)]
fn hexdump() {}
