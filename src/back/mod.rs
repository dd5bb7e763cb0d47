//! Back ends: IR in, target code out. None imports a front end.

pub mod spirv;
