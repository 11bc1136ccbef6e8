//! Naming, before any code is written: every Rust name of the generated module, assigned in
//! declaration order so the output is deterministic, with each collision a warning naming
//! both JSON paths.

use atip_core::flatten::FlatCommand;
use atip_core::{Diagnostic, Document, ToolSpec};
use proc_macro2::Ident;

use super::enums::{EnumPlan, Enums};
use super::field::FieldPlan;
use super::groups::{GroupPlan, Groups};
use super::naming::{renamed, setter_name};
use crate::idents::{ident, snake, upper_camel, Scope, RESERVED_METHODS, RESERVED_TYPES};

/// Everything the generator emits, named.
pub struct Plan<'a> {
    pub commands: Vec<CommandPlan<'a>>,
    pub enums: Vec<EnumPlan>,
    /// The option groups: the tool's global options (first, when there are any and none is
    /// required) and the options of each group command that declares some for the commands
    /// below it (none required). A command that has all of a group's options holds them in
    /// one field (a command whose own option shadows one holds the rest as its own fields).
    pub groups: Vec<GroupPlan<'a>>,
    /// Renames forced by collisions between Rust names.
    pub warnings: Vec<Diagnostic>,
}

pub struct CommandPlan<'a> {
    pub cmd: &'a FlatCommand,
    pub ty: Ident,
    /// Every parameter, in the order of the command's `ToolSpec::params`.
    pub fields: Vec<FieldPlan<'a>>,
    /// The groups (indices into [`Plan::groups`]) whose options the command holds in one
    /// field each rather than in fields of their own, in the order of its parameters.
    pub groups: Vec<usize>,
    /// What a model sees of the command; emitted as its row of the spec table.
    pub spec: ToolSpec,
}

/// Assigns every Rust name, in declaration order.
pub fn plan(doc: &Document) -> Plan<'_> {
    let mut warnings = Vec::new();
    let mut types = Scope::with_reserved(RESERVED_TYPES);
    let struct_names: Vec<Ident> = doc
        .commands
        .iter()
        .map(|cmd| {
            let base = if cmd.path.is_empty() {
                upper_camel(&[doc.tool.name.as_str()])
            } else {
                upper_camel(&cmd.path)
            }
            .unwrap_or_else(|| "Unnamed".to_owned());
            let base = if RESERVED_TYPES.contains(&base.as_str()) {
                format!("{base}Command")
            } else {
                base
            };
            let (name, clash) = types.claim_for(&base, "", &cmd.json_path.to_string());
            warnings.extend(renamed(
                "type",
                &base,
                &name,
                (*cmd.json_path).clone(),
                clash,
            ));
            ident(&name)
        })
        .collect();

    let mut enums = Enums::new(doc, types);

    let mut groups = Groups::new(doc, &mut enums, &mut warnings);

    let commands = doc
        .commands
        .iter()
        .zip(struct_names)
        .enumerate()
        .map(|(index, (cmd, ty))| {
            let mut fields = Scope::default();
            let mut methods = Scope::with_reserved(RESERVED_METHODS);
            let held = groups.held_by(
                index,
                cmd,
                &ty,
                &mut enums,
                &mut warnings,
                &mut fields,
                &mut methods,
            );
            let plans = cmd
                .params()
                .map(|param| {
                    let in_group = held.iter().find_map(|&g| {
                        groups.list[g]
                            .fields
                            .iter()
                            .find(|f| std::ptr::eq(f.param, param))
                            .map(|f| (g, f))
                    });
                    if let Some((g, shared)) = in_group {
                        return FieldPlan {
                            param,
                            field: shared.field.clone(),
                            setter: shared.setter.clone(),
                            enum_ty: shared.enum_ty.clone(),
                            group: Some(g),
                        };
                    }
                    let base = snake(&param.declared_name);
                    let at = param.origin.json_path();
                    let (name, clash) = fields.claim_for(&base, "_", &at.to_string());
                    warnings.extend(renamed("field", &base, &name, at, clash));
                    let setter = setter_name(&mut methods, &name);
                    FieldPlan {
                        param,
                        field: ident(&name),
                        setter,
                        enum_ty: enums.enum_for(index, &ty, cmd, param, &mut warnings),
                        group: None,
                    }
                })
                .collect();
            CommandPlan {
                cmd,
                ty,
                fields: plans,
                groups: held,
                spec: ToolSpec::from_flat(&doc.tool.name, cmd),
            }
        })
        .collect();
    Plan {
        commands,
        enums: enums.into_plans(),
        groups: groups.list,
        warnings,
    }
}
