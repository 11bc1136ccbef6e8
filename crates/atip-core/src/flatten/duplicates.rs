//! Options declared twice on one command: when the second is the first again (the same in
//! everything a caller relies on), and when it differs only in a type one of the two widens.

use crate::model::{OptionSpec, ParamType};

/// Two declarations of one option that agree in everything a caller relies on (name, flags,
/// `required`, `default`, `enum`, `envVar`, `variadic`, `x-atip-rust`) but their type, where
/// both types are among `integer`, `number` and `string`: the wider one takes every value of
/// the other (`string` ⊇ `number` ⊇ `integer`), so one option of that type serves both. The
/// real aws CLI declares `--max-items` twice on some commands (cloudfront, route53 `list-*`),
/// once `string` and once `integer`. `kept` is the type kept so far; `None` when they
/// conflict.
pub(super) fn wider_type(kept: ParamType, a: &OptionSpec, b: &OptionSpec) -> Option<ParamType> {
    let same_but_type = same_option(
        a,
        &OptionSpec {
            ty: a.ty,
            description: a.description.clone(),
            ..b.clone()
        },
    );
    if !same_but_type || a.enum_values.is_some() {
        return None;
    }
    let rank = |t: ParamType| match t {
        ParamType::Integer => Some(0),
        ParamType::Number => Some(1),
        ParamType::String => Some(2),
        _ => None,
    };
    let (x, y) = (rank(kept)?, rank(b.ty)?);
    Some(if y > x { b.ty } else { kept })
}

/// Whether two declarations of an option are the same option: everything but the description
/// agrees (name, flags, type, `required`, `default`, `enum`, `envVar`, `variadic`,
/// `x-atip-rust`). Real
/// documents repeat options this way (the aws CLI's pagination options, generated per
/// operation with slightly different texts); two that differ in anything else conflict.
pub(super) fn same_option(a: &OptionSpec, b: &OptionSpec) -> bool {
    let OptionSpec {
        name,
        flags,
        ty,
        description: _,
        required,
        default,
        enum_values,
        env_var,
        variadic,
        extension,
    } = a;
    *name == b.name
        && *flags == b.flags
        && *ty == b.ty
        && *required == b.required
        && *default == b.default
        && *enum_values == b.enum_values
        && *env_var == b.env_var
        && *variadic == b.variadic
        && *extension == b.extension
}
