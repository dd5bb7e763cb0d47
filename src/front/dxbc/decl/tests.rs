//! Tests of the declaration decoder.
