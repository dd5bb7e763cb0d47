//! Front ends: bytecode in, IR out. Each decodes its bytecode and lowers it into an
//! [`ir::Module`](crate::ir::Module); none imports the back end.

pub mod dxbc;
