//! The committed `include/dxbc2spv.h` is what cbindgen generates from the sources now, so the
//! header never goes stale. `BLESS=1` rewrites it.

use std::path::Path;

#[test]
fn committed_header_is_up_to_date() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).expect("config");
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_crate(crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen generates the header")
        .write(&mut generated);
    let generated = String::from_utf8(generated).expect("UTF-8");
    let path = crate_dir.join("include/dxbc2spv.h");
    if std::env::var_os("BLESS").is_some() {
        std::fs::write(&path, &generated).expect("writes the header");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "include/dxbc2spv.h is stale: run `BLESS=1 cargo test -p dxbc2spv-capi --test header`"
    );
}
