//! pmfarm: the coordinator. Enumerates `.max` files, runs one isolated `pmworker` per
//! file, keeps an append-only journal, sorts results into buckets, compares them with a
//! stored baseline and enforces gates.

pub mod results;
pub mod report;
