//! AppData chunk ids (digest §5.1), apart from the decoder so the normalization whitelist
//! can name them without importing the decoder that applies it.

/// AppData container id.
pub(crate) const APPDATA: u16 = 0x2150;
/// Entry count leaf.
pub(crate) const COUNT: u16 = 0x0100;
/// Entry container.
pub(crate) const ENTRY: u16 = 0x0110;
/// Entry key leaf (20 bytes).
pub(crate) const KEY: u16 = 0x0120;
/// Entry value leaf.
pub(crate) const VALUE: u16 = 0x0130;
