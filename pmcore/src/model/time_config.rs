//! The scene's time configuration (Max's Time Configuration dialog), read-only: the Config
//! stream's 0x20B0 container. Measured on every real `.max` of the shared corpora (309 files,
//! Max 3 to Max 2026; each holds it, at the top level or under the sole run-to-end wrapper
//! of zstd streams): 0x0010 frame rate (frames per second: 30 in most files, 24 in
//! `anim/…/AnimatedSpotlights.max`, 60 in `wild/ryu-ko__9_2.max`), 0x0050 / 0x0060 the
//! animation range (the time slider's active segment) start / end in ticks, 0x0070 the
//! current time in ticks. The document summary's frame numbers are these ticks over the
//! ticks per frame of this rate (see `docs/exporters.md`, `summary`).

use crate::MaxFile;

/// Config container of the time configuration.
const TIME_CONFIG: u16 = 0x20B0;
/// Frames per second (`i32`).
const FRAME_RATE: u16 = 0x0010;
/// Animation range start / end in ticks (`i32`).
const RANGE_START: u16 = 0x0050;
const RANGE_END: u16 = 0x0060;
/// Ticks per second: Max's time unit is 1/4800 s.
pub const TICKS_PER_SECOND: i64 = 4800;

/// What the summary needs of the time configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeConfig {
    /// Frames per second (positive).
    pub frame_rate: i64,
    /// Animation range start in ticks.
    pub start: i64,
    /// Animation range end in ticks.
    pub end: i64,
}

impl TimeConfig {
    /// Reads the time configuration of `file`; `Err` says what is missing.
    pub fn of(file: &MaxFile) -> Result<TimeConfig, String> {
        let config = file.tree_of("Config").ok_or("no Config stream")?;
        let block = config
            .iter()
            .find(|c| c.id == TIME_CONFIG)
            .or_else(|| match config.as_slice() {
                [wrapper] => wrapper.children().iter().find(|c| c.id == TIME_CONFIG),
                _ => None,
            })
            .ok_or("Config time configuration (0x20B0) not found")?;
        let int = |id: u16| -> Result<i64, String> {
            block
                .child(id)
                .and_then(crate::chunk::Chunk::payload)
                .filter(|p| p.len() == 4)
                .map(|p| i64::from(i32::from_le_bytes([p[0], p[1], p[2], p[3]])))
                .ok_or_else(|| format!("Config 0x20B0/0x{id:04X} not stored"))
        };
        let frame_rate = int(FRAME_RATE)?;
        if frame_rate <= 0 {
            return Err(format!("Config frame rate {frame_rate}"));
        }
        Ok(TimeConfig { frame_rate, start: int(RANGE_START)?, end: int(RANGE_END)? })
    }

    /// The frame a time in ticks falls on at this rate, rounded down as Max's frame
    /// counter does.
    pub fn frame(&self, ticks: i64) -> i64 {
        (ticks * self.frame_rate).div_euclid(TICKS_PER_SECOND)
    }
}

#[cfg(test)]
mod tests {
    use super::TimeConfig;

    #[test]
    fn frames_follow_the_frame_rate() {
        let at = |frame_rate| TimeConfig { frame_rate, start: 0, end: 0 };
        // 16000 ticks: frame 100 at 30 fps, frame 200 at 60 fps (`wild/ryu-ko__9_2.max`).
        assert_eq!(at(30).frame(16000), 100);
        assert_eq!(at(60).frame(16000), 200);
        // 200 ticks: frame 1 at 24 fps (`anim/…/AnimatedSpotlights.max`).
        assert_eq!(at(24).frame(200), 1);
        assert_eq!(at(30).frame(-160), -1);
        assert_eq!(at(30).frame(159), 0);
    }
}
