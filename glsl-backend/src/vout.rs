//! `vout [N] T v<>` parameters in a kernel's shader: the candidate outputs.
//!
//! A fragment cannot append to a stream, so the kernel pass writes room for every push an
//! element may make (000 §4.7, 001 §4.2): N candidate values of `T` and how many of them the
//! element filled. The lowered kernel takes, besides `v` itself (a variable the body may
//! assign), `inout T brook_v_0 … brook_v_{N-1}` and `inout int brook_v_count`; `push(e)`
//! stores `e` into the candidate the count selects (outputs cannot be indexed dynamically in
//! GLSL, so by an `if` chain over constant k) and counts it, dropping pushes past N as the CPU
//! back end does. The scan and compaction passes (`scan.rs`) then pack the candidates.
//!
//! # Output numbering
//!
//! The candidates go through the same multi-output and pass-splitting machinery as `out`
//! streams, as output members of the vout parameter: with `M` members per element, member
//! `k·M + m` is member `m` of candidate `k`, and member `N·M` is the count (one float). The
//! pass executor draws them into one scratch stream per vout whose element format is exactly
//! that sequence of members.

use brook_ir::{Function, Module, ParamClass};

use crate::error::GenError;
use crate::members::stream_members;
use crate::names::glsl_name;
use crate::pass::MemberRef;

/// GLSL name of candidate `k` of the vout parameter whose GLSL name is `name`.
pub fn candidate_name(name: &str, k: u32) -> String {
    format!("brook_{name}_{k}")
}

/// GLSL name of the `int` counting the pushes onto the vout parameter `name`.
pub fn count_name(name: &str) -> String {
    format!("brook_{name}_count")
}

/// Every candidate and count output member of every vout parameter of `func`, in parameter
/// order, with its component count (see the module doc for the numbering).
pub fn vout_slots(module: &Module, func: &Function) -> Result<Vec<(MemberRef, u8)>, GenError> {
    let mut slots = Vec::new();
    for (i, p) in func.params.iter().enumerate() {
        let ParamClass::Vout { max } = p.class else {
            continue;
        };
        let members = stream_members(module, &p.ty)?;
        let param = i as u32;
        for k in 0..max {
            for (m, (_, width)) in members.iter().enumerate() {
                let member = k * members.len() as u32 + m as u32;
                slots.push((MemberRef { param, member }, *width));
            }
        }
        let count = max * members.len() as u32;
        slots.push((
            MemberRef {
                param,
                member: count,
            },
            1,
        ));
    }
    Ok(slots)
}

/// Which candidate and element member output member `member` of a vout parameter with
/// `members` members per element is: `(k, m)`, or `None` for the count (member `N·M`).
pub fn candidate_of(members: usize, max: u32, member: u32) -> Option<(u32, usize)> {
    let per = members as u32;
    (member < max * per).then(|| (member / per, (member % per) as usize))
}

/// The GLSL lines lowering `push(value)` onto vout `name` (elements of GLSL type `ty`, room
/// for `max` pushes): `value` is evaluated once, and only when there is room, as on the CPU.
pub fn push_lines(name: &str, max: u32, ty: &str, value: &str) -> Vec<String> {
    let count = count_name(name);
    let mut lines = vec![
        format!("if ({count} < {max}) {{"),
        format!("    {ty} brook_pushed = {value};"),
    ];
    for k in 0..max {
        let store = format!("{} = brook_pushed;", candidate_name(name, k));
        lines.push(match k {
            _ if max == 1 => format!("    {store}"),
            0 => format!("    if ({count} == 0) {store}"),
            _ if k + 1 == max => format!("    else {store}"),
            _ => format!("    else if ({count} == {k}) {store}"),
        });
    }
    lines.push(format!("    {count} += 1;"));
    lines.push("}".to_string());
    lines
}

/// The GLSL name of a vout parameter, if `param` of `func` is one, with its `N`.
pub fn vout_param(func: &Function, param: u32) -> Option<(String, u32)> {
    let p = func.params.get(param as usize)?;
    match p.class {
        ParamClass::Vout { max } => Some((glsl_name(&p.name), max)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_push_stores_into_the_candidate_its_count_selects_and_stops_at_n() {
        let lines = push_lines("o", 3, "vec2", "o").join("\n");
        assert_eq!(
            lines,
            "if (brook_o_count < 3) {
    vec2 brook_pushed = o;
    if (brook_o_count == 0) brook_o_0 = brook_pushed;
    else if (brook_o_count == 1) brook_o_1 = brook_pushed;
    else brook_o_2 = brook_pushed;
    brook_o_count += 1;
}"
        );
        assert!(push_lines("o", 1, "float", "o").contains(&"    brook_o_0 = brook_pushed;".into()));
    }

    #[test]
    fn candidates_are_numbered_candidate_major_with_the_count_last() {
        // Two members, N = 3: members 0..6 are candidates, 6 the count.
        assert_eq!(candidate_of(2, 3, 0), Some((0, 0)));
        assert_eq!(candidate_of(2, 3, 3), Some((1, 1)));
        assert_eq!(candidate_of(2, 3, 5), Some((2, 1)));
        assert_eq!(candidate_of(2, 3, 6), None);
    }
}
