//! Which front end reads the caller's bytes: a Direct3D 9 token stream (told by its version
//! token), the level-9 part of a DXBC container ([`OptionFlags::LEVEL9`]), or the container's
//! own program.
//!
//! Contract: [`Format::of`] looks at the first token and the options only; the front end it
//! picks reports every error of the bytes themselves.

use crate::error::Error;

use super::{OptionFlags, Options};

/// The bytecode formats the crate reads.
pub(super) enum Format {
    /// A Direct3D 9 token stream.
    #[cfg(feature = "d3d9")]
    D3d9,
    /// A DXBC container.
    #[cfg(feature = "dxbc")]
    Dxbc,
    /// The level-9 part (`Aon9`) of a DXBC container.
    #[cfg(all(feature = "dxbc", feature = "d3d9"))]
    Level9,
}

impl Format {
    /// The format of `bytes` under `options`: a D3D9 token stream by its version token, else
    /// DXBC, its level-9 part when `options` asks for it.
    pub(super) fn of(bytes: &[u8], options: &Options) -> Result<Format, Error> {
        let level9 = options.has(OptionFlags::LEVEL9);
        #[cfg(feature = "d3d9")]
        if crate::front::d3d9::is_token_stream(bytes) {
            return Ok(Format::D3d9);
        }
        #[cfg(all(feature = "dxbc", feature = "d3d9"))]
        if level9 {
            return Ok(Format::Level9);
        }
        #[cfg(all(feature = "dxbc", not(feature = "d3d9")))]
        if level9 {
            return Err(Error::unsupported(
                0,
                "level-9 parts (the crate is built without its `d3d9` feature)",
            ));
        }
        #[cfg(feature = "dxbc")]
        return Ok(Format::Dxbc);
        #[cfg(not(feature = "dxbc"))]
        {
            let _ = level9;
            Err(Error::unsupported(
                0,
                "DXBC containers (the crate is built without its `dxbc` feature)",
            ))
        }
    }
}
