//! Reads and re-writes NeL files, one line each: format, class, typed / total bytes, the
//! first difference if any, and every opaque run with why (diagnostics).
//! Usage: nel_roundtrip FILE...
fn main() {
    for path in std::env::args().skip(1) {
        let Ok(bytes) = std::fs::read(&path) else {
            println!("{path}: unreadable");
            continue;
        };
        match pmcore::nel::round_trip(&bytes) {
            Err(e) => println!("{path}: not read: {e}"),
            Ok(rt) => {
                let diff = rt.first_difference.map(|d| format!(" DIFFERS at {d}")).unwrap_or_default();
                println!("{path}: {} {} typed {}/{}{diff}", rt.format, rt.class, rt.typed_bytes, rt.bytes);
                for (offset, len, why) in &rt.opaque_runs {
                    println!("    opaque @{offset} +{len}: {why}");
                }
            }
        }
    }
}
