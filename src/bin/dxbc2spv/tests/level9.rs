//! `translate --level9`: a container's level-9 part translates instead of its SM4 program, in
//! single-file and directory runs; a container without one fails, naming why.

use std::fs;

use dxbc2spv::front::dxbc::FourCc;
use dxbc2spv::text::d3d9::asm::assemble_bytes;
use dxbc2spv::text::dxbc::encode::write_container;

use super::{run, TempDir};
use crate::commands::Status;

/// A container whose only chunk is an `Aon9` part holding `text` (no mapping tables).
fn level9_container(text: &str) -> Vec<u8> {
    let program = assemble_bytes(text).expect("assembles");
    let version = if text.starts_with("vs") {
        0xFFFE_0200u32
    } else {
        0xFFFF_0200
    };
    let header = 36u32;
    let mut payload = Vec::new();
    let size = program.len() as u32;
    for v in [header + size, version, size, header] {
        payload.extend_from_slice(&v.to_le_bytes());
    }
    for _ in 0..5 {
        payload.extend_from_slice(&(header << 16).to_le_bytes());
    }
    payload.extend_from_slice(&program);
    write_container(&[(FourCc::AON9, &payload[..])]).expect("container")
}

const VS: &str = "vs_2_0\ndcl_position v0\ndcl_texcoord v1\nmov oPos, v0\nmov oT0, v1\n";
const PS: &str = "ps_2_0\ndcl t0.xy\ndcl_2d s0\ntexld r0, t0, s0\nmov oC0, r0\n";

#[test]
fn translate_level9_writes_the_level9_module() {
    let tmp = TempDir::new("translate-level9");
    let file = tmp.file("vs.dxbc", &level9_container(VS));
    let out = tmp.path("vs.spv");
    let out_str = out.to_string_lossy().into_owned();
    let r = run(&["translate", "--level9", &file, "-o", &out_str]);
    assert_eq!(r.status, Status::Success, "stderr: {}", r.stderr);
    let spirv = fs::read(&out).expect("module written");
    assert_eq!(spirv.get(..4), Some(&0x0723_0203u32.to_le_bytes()[..]));
    // Without the flag the container has no SM4 program to translate.
    let r = run(&["translate", &file, "-o", &out_str]);
    assert_ne!(r.status, Status::Success, "stdout: {}", r.stdout);
}

#[test]
fn translate_level9_over_a_directory() {
    let tmp = TempDir::new("translate-level9-dir");
    tmp.file("in/vs.dxbc", &level9_container(VS));
    tmp.file("in/ps.dxbc", &level9_container(PS));
    let dir = tmp.path("in").to_string_lossy().into_owned();
    let out = tmp.path("out").to_string_lossy().into_owned();
    let r = run(&["translate", "--level9", &dir, "--out-dir", &out]);
    assert_eq!(
        r.status,
        Status::Success,
        "stdout: {}\nstderr: {}",
        r.stdout,
        r.stderr
    );
    assert!(tmp.path("out/vs.spv").exists() && tmp.path("out/ps.spv").exists());
}

#[test]
fn translate_level9_without_the_part_fails() {
    let tmp = TempDir::new("translate-level9-none");
    let bytes = write_container(&[(FourCc::RDEF, &[0u8; 4][..])]).expect("container");
    let file = tmp.file("none.dxbc", &bytes);
    let out = tmp.path("none.spv").to_string_lossy().into_owned();
    let r = run(&["translate", "--level9", &file, "-o", &out]);
    assert_ne!(r.status, Status::Success);
    assert!(r.stderr.contains("no level-9 part"), "stderr: {}", r.stderr);
}
