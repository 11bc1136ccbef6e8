//! [`ToolSpec`]: what a model sees of one command — its flattened name, description, effects
//! and parameters — independent of any provider.
//!
//! It is built from a [`FlatCommand`] at run time, and by generated code from the spec table
//! the generator writes ([`crate::spec_table`]; `<PrCreate as Command>::tool()`), so provider schemas ([`crate::providers`]), argument
//! checking (`atip_runtime::command::dispatch`) and the safety prompt (`atip_runtime::wire::prompt`) work the same on
//! generated code and on metadata loaded while running.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use crate::effects::{Effects, Text, TextList};
use crate::flatten::{FlatCommand, ParamPlacement};
use crate::model::ParamType;
use crate::shared::Shared;

/// One tool as a model sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolSpec {
    /// Flattened, provider-valid name (`gh_pr_create`).
    pub name: Text,
    /// Human-readable title: the command line without options (`gh pr create`).
    pub title: Text,
    /// Subcommand path (`["pr", "create"]`).
    pub path: TextList,
    /// The command's description, without safety flags.
    pub description: Text,
    /// Merged effects.
    pub effects: Effects,
    /// Parameters: arguments in declaration order, then options in argv order.
    pub params: Cow<'static, [ParamSpec]>,
}

/// One parameter of a [`ToolSpec`]: what a model sees of it (name, description, kind, values)
/// and how its values go on the command line ([`ParamSpec::argv`]).
///
/// Hand-written specs build these in `const`s with the named constructors ([`ParamSpec::flag`],
/// [`ParamSpec::option`], [`ParamSpec::short_option`], [`ParamSpec::argument`]) and the
/// chainable setters ([`ParamSpec::required`], [`ParamSpec::values`], …); generated code reads
/// them from its spec table ([`crate::spec_table`]), and metadata loaded at run time gets them
/// from [`ToolSpec::from_flat`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ParamSpec {
    /// Provider-valid parameter name (`dry_run`); shared, as every value a call records
    /// carries it.
    pub name: Shared<str>,
    /// The parameter's description.
    pub description: Text,
    /// What a value is.
    pub kind: ValueKind,
    /// Must be given. Booleans never are: absent means `false`.
    pub required: bool,
    /// Takes a list of values (variadic or `array`).
    pub multiple: bool,
    /// Allowed values: the enumeration of an [`ValueKind::Enum`], or the `enum` list of an
    /// integer or number parameter, as text. `None` when anything of the kind goes.
    pub values: Option<TextList>,
    /// The tool's default when left out, as text (`open`, `30`).
    pub default: Option<Text>,
    /// How its values go on the command line.
    pub argv: ArgvForm,
    /// A global option (`globalOptions`, spec §3.4): written right after the program, before
    /// the subcommand path.
    pub global: bool,
    /// What giving this parameter adds to the command's effects (`x-atip-rust.effects`): a
    /// call's effects are [`ToolSpec::effects`] merged with those of every parameter it gives
    /// (a `true` flag, any value of another kind). `None` for most parameters.
    pub effects: Option<Shared<Effects>>,
}

/// How a parameter's values go on the command line: long flags as `--flag=value`, short-only
/// flags as two elements (`-f`, `value`), booleans as a bare flag when `true`, and a list as
/// the flag repeated once per value; positional arguments after every option, with `--`
/// before them when one starts with `-`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "form", content = "text", rename_all = "lowercase")]
pub enum ArgvForm {
    /// A positional argument; the text is its declared name, which problems quote.
    Argument(Text),
    /// A boolean option: the bare flag (`--verbose`) when `true`, nothing when `false`.
    Flag(Text),
    /// An option with a long flag: one element `--flag=value` per value.
    Joined(Text),
    /// An option with only a short flag: two elements, `-f` then the value, per value.
    Separate(Text),
}

impl ArgvForm {
    /// The flag, or an argument's declared name: what problems about the parameter quote.
    pub fn label(&self) -> &str {
        match self {
            ArgvForm::Argument(t)
            | ArgvForm::Flag(t)
            | ArgvForm::Joined(t)
            | ArgvForm::Separate(t) => t,
        }
    }

    /// Whether this is a positional argument.
    pub const fn is_argument(&self) -> bool {
        matches!(self, ArgvForm::Argument(_))
    }
}

impl ParamSpec {
    /// A spec with every optional part unset; the named constructors below start here.
    const fn base(
        name: &'static str,
        description: &'static str,
        kind: ValueKind,
        argv: ArgvForm,
    ) -> ParamSpec {
        ParamSpec {
            name: Shared::Static(name),
            description: Cow::Borrowed(description),
            kind,
            required: false,
            multiple: false,
            values: None,
            default: None,
            argv,
            global: false,
            effects: None,
        }
    }

    /// A positional argument called `name` (its declared name too; see
    /// [`ParamSpec::declared_as`]).
    pub const fn argument(name: &'static str, description: &'static str, kind: ValueKind) -> Self {
        Self::base(
            name,
            description,
            kind,
            ArgvForm::Argument(Cow::Borrowed(name)),
        )
    }

    /// A boolean option written as the bare `flag` when `true`.
    pub const fn flag(name: &'static str, description: &'static str, flag: &'static str) -> Self {
        Self::base(
            name,
            description,
            ValueKind::Boolean,
            ArgvForm::Flag(Cow::Borrowed(flag)),
        )
    }

    /// An option taking values of `kind`, written `--flag=value`.
    pub const fn option(
        name: &'static str,
        description: &'static str,
        kind: ValueKind,
        flag: &'static str,
    ) -> Self {
        Self::base(
            name,
            description,
            kind,
            ArgvForm::Joined(Cow::Borrowed(flag)),
        )
    }

    /// An option with only a short flag, taking values of `kind`, written `-f value`.
    pub const fn short_option(
        name: &'static str,
        description: &'static str,
        kind: ValueKind,
        flag: &'static str,
    ) -> Self {
        Self::base(
            name,
            description,
            kind,
            ArgvForm::Separate(Cow::Borrowed(flag)),
        )
    }

    /// `self`, required.
    pub const fn required(mut self) -> Self {
        self.required = true;
        self
    }

    /// `self`, taking a list of values.
    pub const fn multiple(mut self) -> Self {
        self.multiple = true;
        self
    }

    /// `self`, a global option.
    pub const fn global(mut self) -> Self {
        self.global = true;
        self
    }

    /// `self` with its allowed values.
    pub const fn values(mut self, values: &'static [Text]) -> Self {
        // Assigning would drop the old value, which `const fn` cannot do.
        std::mem::forget(self.values.replace(Cow::Borrowed(values)));
        self
    }

    /// `self` with the tool's default.
    pub const fn default(mut self, default: &'static str) -> Self {
        std::mem::forget(self.default.replace(Cow::Borrowed(default)));
        self
    }

    /// `self` (a positional argument) declared as `declared` where that differs from its
    /// provider-valid name (`file-name` for `file_name`).
    pub const fn declared_as(mut self, declared: &'static str) -> Self {
        let argv = std::mem::replace(&mut self.argv, ArgvForm::Argument(Cow::Borrowed(declared)));
        std::mem::forget(argv);
        self
    }

    /// `self` with `effects` of its own: what giving it adds to the command's effects
    /// ([`ParamSpec::effects`]).
    pub const fn with_effects(mut self, effects: &'static Effects) -> Self {
        let old = self.effects.replace(Shared::Static(effects));
        std::mem::forget(old);
        self
    }

    /// Whether values are paths (`file` or `directory`), judged by path rules.
    pub const fn is_path(&self) -> bool {
        matches!(self.kind, ValueKind::File | ValueKind::Directory)
    }
}

/// The kind of one value of a parameter (spec §3.7, enumerations resolved).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ValueKind {
    /// Any string (`string`, `array` items, `enum` without a list).
    String,
    /// A whole number (`integer`), 64-bit signed.
    Integer,
    /// A finite number (`number`).
    Number,
    /// `true` or `false` (`boolean`).
    Boolean,
    /// A file path (`file`).
    File,
    /// A directory path (`directory`).
    Directory,
    /// An absolute URL (`url`).
    Url,
    /// One of [`ParamSpec::values`].
    Enum,
}

impl ValueKind {
    /// The JSON type of a value (spec §8.2 rule 4: paths and URLs are strings).
    pub const fn json_type(self) -> &'static str {
        match self {
            ValueKind::Integer => "integer",
            ValueKind::Number => "number",
            ValueKind::Boolean => "boolean",
            _ => "string",
        }
    }

    /// The hint that tells a model the expected format, for kinds JSON types do not express.
    pub const fn format_hint(self) -> Option<&'static str> {
        match self {
            ValueKind::File => Some("file path"),
            ValueKind::Directory => Some("directory path"),
            ValueKind::Url => Some("URL"),
            _ => None,
        }
    }
}

/// Which of a tool's global options (`globalOptions`, spec §3.2; each an option as in §3.5) a
/// model sees. Globals repeat in every command's schema — fifteen of them are most of what a
/// cloud CLI's command costs in context — so a caller may send none, or only those the task
/// needs. Dispatch of loaded metadata follows what was sent: a hidden global is an unknown
/// parameter.
///
/// The default is [`GlobalOptions::All`]: nothing the metadata declares is hidden unless asked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum GlobalOptions {
    /// Every global option (the default).
    #[default]
    All,
    /// None: each command's own and inherited options only.
    None,
    /// These, by parameter name (`region`, `no_paginate`).
    Only(Vec<String>),
}

impl GlobalOptions {
    /// The names of [`GlobalOptions::Only`] that are no global option of `specs` (a typo
    /// would otherwise hide every global silently).
    pub fn unknown_names<'a>(
        &'a self,
        specs: impl IntoIterator<Item = &'a ToolSpec>,
    ) -> Vec<&'a str> {
        let GlobalOptions::Only(names) = self else {
            return Vec::new();
        };
        let globals: std::collections::BTreeSet<&str> = specs
            .into_iter()
            .flat_map(|s| s.params.iter())
            .filter(|p| p.global)
            .map(|p| p.name.as_ref())
            .collect();
        names
            .iter()
            .map(String::as_str)
            .filter(|n| !globals.contains(n))
            .collect()
    }

    /// Whether a model sees `param` (always, for a parameter that is not global).
    pub fn keeps(&self, param: &ParamSpec) -> bool {
        !param.global || self.keeps_global(&param.name)
    }

    /// Whether a model sees the global option whose parameter name is `name`.
    pub fn keeps_global(&self, name: &str) -> bool {
        match self {
            GlobalOptions::All => true,
            GlobalOptions::None => false,
            GlobalOptions::Only(names) => names.iter().any(|n| n == name),
        }
    }
}

impl ToolSpec {
    /// This spec with only the global options `globals` keeps.
    pub fn with_global_options(mut self, globals: &GlobalOptions) -> ToolSpec {
        self.retain_global_options(globals);
        self
    }

    /// Drops the global options `globals` does not keep, in place (see
    /// [`ToolSpec::with_global_options`]).
    pub fn retain_global_options(&mut self, globals: &GlobalOptions) {
        if *globals != GlobalOptions::All && self.params.iter().any(|p| !globals.keeps(p)) {
            self.params.to_mut().retain(|p| globals.keeps(p));
        }
    }

    /// The spec of a flattened command of tool `tool` (its `name`, used in the title).
    pub fn from_flat(tool: &str, cmd: &FlatCommand) -> ToolSpec {
        let mut spec = ToolSpec {
            name: Cow::Borrowed(""),
            title: Cow::Borrowed(""),
            path: Cow::Borrowed(&[]),
            description: Cow::Borrowed(""),
            effects: Effects::UNKNOWN,
            params: Cow::Borrowed(&[]),
        };
        spec.refill_from_flat(tool, cmd);
        spec
    }

    /// Makes this spec [`ToolSpec::from_flat`]`(tool, cmd)`, reusing the text it already owns:
    /// a writer that handles one command at a time (a loaded document's provider definitions)
    /// refills one spec instead of allocating every name, description and flag per command
    /// (parameter names are shared with `cmd`'s: [`FlatParam::name`](crate::FlatParam::name)).
    pub fn refill_from_flat(&mut self, tool: &str, cmd: &FlatCommand) {
        set_text(&mut self.name, &cmd.name);
        let title = owned_text(&mut self.title);
        title.clear();
        title.push_str(tool);
        for segment in &cmd.path {
            title.push(' ');
            title.push_str(segment);
        }
        set_list(&mut self.path, cmd.path.iter().map(String::as_str));
        set_text(&mut self.description, &cmd.description);
        self.effects.clone_from(&cmd.effects);
        let params = self.params.to_mut();
        let mut n = 0;
        for p in cmd.params() {
            if n == params.len() {
                params.push(ParamSpec::base(
                    "",
                    "",
                    ValueKind::String,
                    ArgvForm::Flag(Cow::Borrowed("")),
                ));
            }
            refill_param(&mut params[n], p);
            n += 1;
        }
        params.truncate(n);
    }

    /// The effects a model is told of, and MCP annotations are drawn from: the command's own
    /// merged with those of every parameter that declares some (the union over every option:
    /// `destructive` when any option can destroy). Borrowed when no parameter declares effects.
    pub fn widest_effects(&self) -> Cow<'_, Effects> {
        let mut widest = Cow::Borrowed(&self.effects);
        for e in self.params.iter().filter_map(|p| p.effects.as_deref()) {
            widest = Cow::Owned(widest.raised_by(e));
        }
        widest
    }

    /// The parameters that declare effects of their own, with those effects, in parameter
    /// order.
    pub fn params_with_effects(&self) -> impl Iterator<Item = (&ParamSpec, &Effects)> {
        self.params
            .iter()
            .filter_map(|p| p.effects.as_deref().map(|e| (p, e)))
    }

    /// The parameter called `name`.
    pub fn param(&self, name: &str) -> Option<&ParamSpec> {
        self.params.iter().find(|p| p.name == name)
    }
}

/// Sets `text` to `value`, reusing its buffer when it owns one.
fn set_text(text: &mut Text, value: &str) {
    let owned = owned_text(text);
    owned.clear();
    owned.push_str(value);
}

/// The owned buffer of `text`, which becomes owned (empty) if it was borrowed.
fn owned_text(text: &mut Text) -> &mut String {
    if let Cow::Borrowed(_) = text {
        *text = Cow::Owned(String::new());
    }
    match text {
        Cow::Owned(s) => s,
        Cow::Borrowed(_) => unreachable!("made owned above"),
    }
}

/// Sets `list` to `values`, reusing the texts it already owns.
fn set_list<'v>(list: &mut TextList, values: impl Iterator<Item = &'v str>) {
    let items = list.to_mut();
    let mut n = 0;
    for v in values {
        if n == items.len() {
            items.push(Cow::Owned(v.to_owned()));
        } else {
            set_text(&mut items[n], v);
        }
        n += 1;
    }
    items.truncate(n);
}

/// Makes `spec` the spec of the flattened parameter `p` (see [`ToolSpec::from_flat`]).
fn refill_param(spec: &mut ParamSpec, p: &crate::flatten::FlatParam) {
    let kind = match (&p.enum_values, p.ty) {
        (Some(_), _) => ValueKind::Enum,
        (None, ParamType::Integer) => ValueKind::Integer,
        (None, ParamType::Number) => ValueKind::Number,
        (None, ParamType::Boolean) => ValueKind::Boolean,
        (None, ParamType::File) => ValueKind::File,
        (None, ParamType::Directory) => ValueKind::Directory,
        (None, ParamType::Url) => ValueKind::Url,
        (None, _) => ValueKind::String,
    };
    // Integer and number parameters keep their listed values as an enumeration too.
    let values = p.enum_values.as_deref().or_else(|| {
        (!p.listed_values.is_empty() && matches!(kind, ValueKind::Integer | ValueKind::Number))
            .then_some(p.listed_values.as_slice())
    });
    match values {
        Some(values) => {
            let list = spec.values.get_or_insert(Cow::Borrowed(&[]));
            set_list(list, values.iter().map(String::as_str));
        }
        None => spec.values = None,
    }
    // The argv form's text is reused whatever the form was.
    let vacated = ArgvForm::Flag(Cow::Borrowed(""));
    let mut text = match std::mem::replace(&mut spec.argv, vacated) {
        ArgvForm::Argument(t) | ArgvForm::Flag(t) | ArgvForm::Joined(t) | ArgvForm::Separate(t) => {
            t
        }
    };
    spec.argv = match &p.kind {
        ParamPlacement::Argument => {
            set_text(&mut text, &p.declared_name);
            ArgvForm::Argument(text)
        }
        ParamPlacement::Option { flag, .. } => {
            set_text(&mut text, &flag.text);
            if kind == ValueKind::Boolean {
                ArgvForm::Flag(text)
            } else if flag.attached {
                ArgvForm::Joined(text)
            } else {
                ArgvForm::Separate(text)
            }
        }
    };
    spec.name.clone_from(&p.name);
    set_text(&mut spec.description, &p.description);
    spec.kind = kind;
    spec.global = p.is_global();
    spec.required = p.required && kind != ValueKind::Boolean;
    spec.multiple = p.multiple;
    spec.effects = p.effects.clone().map(Shared::new);
    match p.default.as_deref() {
        Some(serde_json::Value::String(d)) => {
            set_text(spec.default.get_or_insert(Cow::Borrowed("")), d)
        }
        Some(other) => set_text(
            spec.default.get_or_insert(Cow::Borrowed("")),
            &other.to_string(),
        ),
        None => spec.default = None,
    }
}
