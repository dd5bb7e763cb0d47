//! Gives the shared library an ELF SONAME, `libdxbc2spv.so.<ABI major>`, so that programs
//! record that name (`DT_NEEDED`) and a later library with an incompatible ABI gets another
//! (`install.sh` installs `libdxbc2spv.so.<version>` with the `.so.<major>` and `.so` links).
//! The major is [`ABI_MAJOR`]: it changes only when a released function or structure changes
//! in a way a program built against the old header cannot use (additions bump
//! `DXBC2SPV_API_VERSION` only).

/// The ABI major of `libdxbc2spv.so` (`tests/c_program.rs` checks the SONAME it gives).
const ABI_MAJOR: u32 = 0;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let family = std::env::var("CARGO_CFG_TARGET_FAMILY").unwrap_or_default();
    // ELF platforms (not Apple's Mach-O, which names libraries with `install_name`).
    let elf = family.split(',').any(|f| f == "unix") && !matches!(os.as_str(), "macos" | "ios");
    if elf {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libdxbc2spv.so.{ABI_MAJOR}");
    }
    println!("cargo:rustc-env=DXBC2SPV_ABI_MAJOR={ABI_MAJOR}");
}
