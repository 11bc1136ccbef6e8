//! One clap argument as an ATIP option or positional argument: which arguments are the
//! program's own, flags, action, value count, type, default, and what the argv writer cannot
//! express.

use std::any::TypeId;
use std::ffi::OsString;
use std::path::PathBuf;

use atip_core::model::{ArgumentSpec, EnumValue, OptionSpec};
use atip_core::ParamType;
use clap::{Arg, ArgAction, ValueHint};
use serde_json::Value;

use super::walker::{Param, Walker};

/// The id of the argument [`agent_flag`](crate::agent_flag) adds; [`document`](crate::document())
/// leaves it out.
pub const AGENT_ARG_ID: &str = "atip-agent";

/// Whether `arg` is one of clap's own (help, version) or `--agent`, which describe nothing the
/// program does.
pub(super) fn is_builtin(arg: &Arg) -> bool {
    matches!(
        arg.get_action(),
        ArgAction::Help | ArgAction::HelpShort | ArgAction::HelpLong | ArgAction::Version
    ) || arg.get_id() == AGENT_ARG_ID
}

impl Walker<'_> {
    /// One clap argument as an ATIP argument or option.
    pub(super) fn param(&mut self, arg: &Arg, path: &[String]) -> Param {
        if is_builtin(arg) || arg.is_hide_set() {
            return Param::None;
        }
        let excluded = if arg.is_required_set() {
            Param::Blocks
        } else {
            Param::None
        };
        if arg.is_exclusive_set() {
            self.warn(
                path,
                Some(arg),
                "exclusive (no other argument may be given with it): ATIP cannot say so",
            );
        }
        if arg.is_positional() {
            return self.positional(arg, path, excluded);
        }
        let mut flags = Vec::new();
        if let Some(c) = arg.get_short() {
            flags.push(format!("-{c}"));
        }
        for c in arg.get_visible_short_aliases().unwrap_or_default() {
            flags.push(format!("-{c}"));
        }
        if let Some(l) = arg.get_long() {
            flags.push(format!("--{l}"));
        }
        for l in arg.get_visible_aliases().unwrap_or_default() {
            flags.push(format!("--{l}"));
        }
        let long = arg.get_long().is_some();
        let name = arg
            .get_long()
            .map_or_else(|| arg.get_id().to_string(), str::to_owned);
        let description = help(arg);
        let mut option = OptionSpec {
            name,
            flags,
            ty: ParamType::Boolean,
            description,
            required: None,
            default: None,
            enum_values: None,
            env_var: arg.get_env().and_then(|e| e.to_str()).map(str::to_owned),
            variadic: None,
            extension: None,
        };
        let range = arg.get_num_args().unwrap_or_default();
        match arg.get_action() {
            ArgAction::SetTrue => return Param::Option(option),
            ArgAction::SetFalse => {
                option.description = with_note(
                    &option.description,
                    "given, it sets the setting off (clap's SetFalse)",
                );
                return Param::Option(option);
            }
            ArgAction::Count => {
                self.warn(
                    path,
                    Some(arg),
                    "counts its occurrences (ArgAction::Count); ATIP has no count: described \
                     as a boolean flag, given once when true",
                );
                return Param::Option(option);
            }
            ArgAction::Set | ArgAction::Append => {}
            other => {
                self.warn(
                    path,
                    Some(arg),
                    format!("action {other:?} has no ATIP counterpart: left out"),
                );
                return excluded;
            }
        }
        let append = matches!(arg.get_action(), ArgAction::Append);
        if range.max_values() == 0 {
            // `Set` with no value is a flag.
            return Param::Option(option);
        }
        if range.min_values() > 1 {
            self.warn(
                path,
                Some(arg),
                format!(
                    "needs {} or more values per occurrence; the argv writer writes one value \
                     per flag (`--flag=value`), after which clap would take the next argument \
                     as the missing value: left out",
                    range.min_values()
                ),
            );
            return excluded;
        }
        if !long && arg.is_require_equals_set() {
            self.warn(
                path,
                Some(arg),
                "a short-only option that requires `=`; the argv writer passes the value of a \
                 short flag as the next element: left out",
            );
            return excluded;
        }
        if !long && !arg.is_allow_hyphen_values_set() {
            self.warn(
                path,
                Some(arg),
                "short-only: the argv writer passes its value as the next element, and clap \
                 reads a next element starting with `-` as a flag; values starting with `-` \
                 cannot be passed (ATIP cannot say so)",
            );
        }
        if range.min_values() == 0 {
            self.warn(
                path,
                Some(arg),
                "its value is optional; the form without a value cannot be written (the argv \
                 writer always writes a value)",
            );
        }
        if !append && range.max_values() > 1 {
            self.warn(
                path,
                Some(arg),
                "takes several values in one occurrence and cannot be repeated; the argv \
                 writer repeats the flag once per value: described as taking one value",
            );
        }
        if append && range.max_values() > 1 {
            self.warn(
                path,
                Some(arg),
                "repeats and takes several values per occurrence (Append with num_args); the \
                 argv writer writes each value with a flag of its own (`--flag=a --flag=b`), \
                 which clap reads as one occurrence per value, never one occurrence of several \
                 (fd's `--exec wc -l` cannot be written): described as one value per occurrence",
            );
            option.description = with_note(
                &option.description,
                "each value is given with a flag of its own, one occurrence per value",
            );
        }
        self.warn_delimiter(arg, path);
        let (ty, values) = self.value_type(arg, path);
        option.ty = ty;
        option.enum_values = values;
        if append {
            option.variadic = Some(true);
        }
        if arg.is_required_set() {
            option.required = Some(true);
        }
        option.default = default_of(arg, ty, append);
        Param::Option(option)
    }

    /// A positional argument.
    pub(super) fn positional(&mut self, arg: &Arg, path: &[String], excluded: Param) -> Param {
        if arg.is_last_set() {
            self.warn(
                path,
                Some(arg),
                "`last(true)`: clap takes it only after `--`, which the argv writer inserts \
                 only before a value starting with `-`: left out",
            );
            return excluded;
        }
        if let Some(last) = self.last_positional.clone() {
            self.warn(
                path,
                Some(arg),
                format!(
                    "a value starting with `-` cannot be passed: the argv writer puts `--` \
                     before it, and clap gives every value after `--` to `{last}`, the \
                     `last(true)` positional"
                ),
            );
        }
        let range = arg.get_num_args().unwrap_or_default();
        let variadic = range.max_values() > 1;
        match arg.get_action() {
            ArgAction::Set | ArgAction::Append => {}
            other => {
                self.warn(
                    path,
                    Some(arg),
                    format!("action {other:?} has no ATIP counterpart: left out"),
                );
                return excluded;
            }
        }
        if range.min_values() > 1 {
            self.warn(
                path,
                Some(arg),
                format!(
                    "needs at least {} values; ATIP cannot say so (clap refuses fewer)",
                    range.min_values()
                ),
            );
        }
        if variadic && range.max_values() != usize::MAX {
            self.warn(
                path,
                Some(arg),
                format!(
                    "takes at most {} values; ATIP cannot say so",
                    range.max_values()
                ),
            );
        }
        self.warn_delimiter(arg, path);
        let (ty, values) = self.value_type(arg, path);
        Param::Argument(ArgumentSpec {
            name: arg.get_id().to_string(),
            ty,
            description: help(arg),
            required: Some(arg.is_required_set()),
            default: default_of(arg, ty, variadic),
            variadic: variadic.then_some(true),
            enum_values: values,
            extension: None,
        })
    }

    /// A warning for an option or positional whose values clap splits at a delimiter.
    fn warn_delimiter(&mut self, arg: &Arg, path: &[String]) {
        if let Some(d) = arg.get_value_delimiter() {
            self.warn(
                path,
                Some(arg),
                format!(
                    "clap splits each value at `{d}`: a value containing `{d}` becomes several"
                ),
            );
        }
    }

    /// The ATIP type of one value of `arg`, from its possible values or its value parser.
    pub(super) fn value_type(
        &mut self,
        arg: &Arg,
        path: &[String],
    ) -> (ParamType, Option<Vec<EnumValue>>) {
        let possible: Vec<EnumValue> = arg
            .get_possible_values()
            .iter()
            .filter(|p| !p.is_hide_set())
            .map(|p| EnumValue::String(p.get_name().to_owned()))
            .collect();
        if !possible.is_empty() {
            if arg.is_ignore_case_set() {
                self.warn(
                    path,
                    Some(arg),
                    "clap also accepts its values in other letter cases; described with the \
                     values as declared",
                );
            }
            return (ParamType::Enum, Some(possible));
        }
        let id = arg.get_value_parser().type_id();
        let is = |t: TypeId| id == t;
        if is(TypeId::of::<i64>()) {
            return (ParamType::Integer, None);
        }
        let narrower = [
            TypeId::of::<i8>(),
            TypeId::of::<i16>(),
            TypeId::of::<i32>(),
            TypeId::of::<u8>(),
            TypeId::of::<u16>(),
            TypeId::of::<u32>(),
            TypeId::of::<u64>(),
            TypeId::of::<usize>(),
            TypeId::of::<isize>(),
            TypeId::of::<i128>(),
            TypeId::of::<u128>(),
        ];
        if narrower.iter().any(|t| is(*t)) {
            self.warn(
                path,
                Some(arg),
                "an integer of a narrower range than ATIP's 64-bit signed `integer` (or an \
                 unsigned one): clap refuses values outside its range",
            );
            return (ParamType::Integer, None);
        }
        if is(TypeId::of::<f64>()) {
            return (ParamType::Number, None);
        }
        if is(TypeId::of::<f32>()) {
            self.warn(
                path,
                Some(arg),
                "a 32-bit float: values are rounded to f32 precision",
            );
            return (ParamType::Number, None);
        }
        if is(TypeId::of::<PathBuf>()) {
            return match arg.get_value_hint() {
                ValueHint::DirPath => (ParamType::Directory, None),
                _ => (ParamType::File, None),
            };
        }
        if is(TypeId::of::<String>()) || is(TypeId::of::<OsString>()) {
            return match arg.get_value_hint() {
                ValueHint::Url => (ParamType::Url, None),
                ValueHint::DirPath => (ParamType::Directory, None),
                ValueHint::FilePath | ValueHint::AnyPath | ValueHint::ExecutablePath => {
                    (ParamType::File, None)
                }
                _ => (ParamType::String, None),
            };
        }
        self.warn(
            path,
            Some(arg),
            "its value parser is the program's own: described as a string, which the program \
             may refuse",
        );
        (ParamType::String, None)
    }
}

/// A help text as a description: the short help, else the long one, trimmed.
fn help(arg: &Arg) -> String {
    arg.get_help()
        .or_else(|| arg.get_long_help())
        .map(|s| s.to_string())
        .unwrap_or_default()
        .trim()
        .to_owned()
}

/// `text` with `note` after it, in parentheses.
fn with_note(text: &str, note: &str) -> String {
    if text.is_empty() {
        format!("({note})")
    } else {
        format!("{text} ({note})")
    }
}

/// The declared default, typed as the parameter is (booleans have none: absent means false).
fn default_of(arg: &Arg, ty: ParamType, list: bool) -> Option<Value> {
    let values: Vec<Value> = arg
        .get_default_values()
        .iter()
        .filter_map(|v| v.to_str())
        .map(|text| match ty {
            ParamType::Integer => text
                .parse::<i64>()
                .map_or_else(|_| Value::String(text.to_owned()), Value::from),
            ParamType::Number => text
                .parse::<f64>()
                .ok()
                .and_then(serde_json::Number::from_f64)
                .map_or_else(|| Value::String(text.to_owned()), Value::Number),
            _ => Value::String(text.to_owned()),
        })
        .collect();
    match values.len() {
        0 => None,
        1 if !list => values.into_iter().next(),
        _ => Some(Value::Array(values)),
    }
}
