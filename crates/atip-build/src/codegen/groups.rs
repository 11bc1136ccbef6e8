//! Option groups: options several commands share, held in one struct field of each and set
//! through a trait — the tool's global options (`Globals`) and the options a group command
//! declares for every command below it (`PrOptions` for `gh pr`). Which groups exist, what
//! they are named, and which commands hold each one whole.

use std::collections::HashMap;
use std::sync::Arc;

use atip_core::flatten::{FlatCommand, FlatParam, OptionScope, ParamPlacement};
use atip_core::{Diagnostic, Document, JsonPath};
use proc_macro2::Ident;

use super::enums::Enums;
use super::field::FieldPlan;
use super::naming::setter_name;
use crate::idents::{ident, snake, unraw, upper_camel, Scope, RESERVED_METHODS};

/// Options several commands share, held in one struct field of each and set on them through
/// a trait: the tool's global options (`Globals`, `SetGlobals`, field `globals`) or the
/// options a group command declares for every command below it (`PrOptions`,
/// `SetPrOptions`, field `pr_options` for `gh pr`).
pub struct GroupPlan<'a> {
    pub ty: Ident,
    pub setters_trait: Ident,
    /// The field holding the group in each command, and the trait's setter of the whole
    /// group (unique among groups, claimed before a command's own names).
    pub field: Ident,
    /// The trait's `&mut` accessor (`globals_mut`), the one method a command implements.
    pub accessor: Ident,
    /// The options, in declaration order.
    pub fields: Vec<FieldPlan<'a>>,
    /// The declaring command's path; `None` for the global options.
    pub declared_by: Option<&'a [String]>,
    /// The first command holding the group (it is emitted just before it); `None` when no
    /// command does.
    pub first_user: Option<usize>,
}

/// The groups of one document, named as commands first hold them.
pub(super) struct Groups<'a> {
    doc: &'a Document,
    /// Every group named so far; the global options' first, when there is one.
    pub list: Vec<GroupPlan<'a>>,
    /// Whether `list[0]` is the global options' group.
    globals: bool,
    /// How many global options the tool declares.
    declared_globals: usize,
    /// The options of each declaring node, in declaration order.
    declared: Vec<Vec<&'a FlatParam>>,
    /// Index in `declared` by declaring node.
    declaring: HashMap<*const JsonPath, usize>,
    /// Index in `list` of each declaring node's group, once named.
    group_of: Vec<Option<usize>>,
    /// Field names of the groups, unique among them (`globals`, `pr_options`).
    field_names: Scope,
}

impl<'a> Groups<'a> {
    /// The global options' group (when there are global options, none of them required, and
    /// a command has them all: every command has every global option unless its own option
    /// shadows one), and the options each group command declares, by declaring node.
    pub fn new(doc: &'a Document, enums: &mut Enums<'_>, warnings: &mut Vec<Diagnostic>) -> Self {
        let all_globals: Vec<&FlatParam> = doc
            .commands
            .iter()
            .map(|c| {
                c.options
                    .iter()
                    .filter(|p| p.is_global())
                    .map(|p| &**p)
                    .collect::<Vec<_>>()
            })
            .max_by_key(Vec::len)
            .unwrap_or_default();
        let declared_globals = doc.tool.global_options.len();
        let globals = declared_globals > 0
            && all_globals.len() == declared_globals
            && all_globals.iter().all(|p| !p.required);
        let mut list = Vec::new();
        if globals {
            let ty = ident("Globals");
            let fields = group_field_plans(
                &all_globals,
                &ident("globals"),
                &ident("globals_mut"),
                |param| enums.enum_for(0, &ty, &doc.commands[0], param, warnings),
            );
            list.push(GroupPlan {
                ty,
                setters_trait: ident("SetGlobals"),
                field: ident("globals"),
                accessor: ident("globals_mut"),
                fields,
                declared_by: None,
                // Emitted first, whichever command holds it first.
                first_user: Some(0),
            });
        }

        // By declaring node, in the order commands first inherit them.
        let mut declared: Vec<Vec<&FlatParam>> = Vec::new();
        let mut declaring: HashMap<*const JsonPath, usize> = HashMap::new();
        for cmd in &doc.commands {
            for p in cmd.options.iter().filter(|p| is_inherited(p)) {
                let next = declared.len();
                let i = *declaring.entry(Arc::as_ptr(&p.origin.node)).or_insert(next);
                if i == next {
                    declared.push(Vec::new());
                }
                if !declared[i].iter().any(|q| std::ptr::eq(*q, &**p)) {
                    declared[i].push(&**p);
                }
            }
        }
        for params in &mut declared {
            params.sort_by_key(|p| p.origin.index);
        }
        let group_of = vec![None; declared.len()];
        Groups {
            doc,
            list,
            globals,
            declared_globals,
            declared,
            declaring,
            group_of,
            field_names: Scope::with_reserved(&["globals"]),
        }
    }

    /// The groups command `cmd` (number `index`, type `ty`) holds whole, as indices into
    /// [`Groups::list`]: the global options first, then inherited groups outermost first.
    /// Their field, accessor and setter names are claimed in `fields` and `methods` before
    /// the command's own. A group is not held when a command lacks one of its options (its
    /// own option shadows it), when one of them is required, or when its setters would share
    /// a name with an earlier group's (every call would be ambiguous): then the command holds
    /// those options as fields of its own.
    #[allow(clippy::too_many_arguments)]
    pub fn held_by(
        &mut self,
        index: usize,
        cmd: &'a FlatCommand,
        ty: &Ident,
        enums: &mut Enums<'_>,
        warnings: &mut Vec<Diagnostic>,
        fields: &mut Scope,
        methods: &mut Scope,
    ) -> Vec<usize> {
        let mut wanted: Vec<usize> = Vec::new();
        let has_all_globals =
            cmd.options.iter().filter(|p| p.is_global()).count() == self.declared_globals;
        if self.globals && has_all_globals {
            wanted.push(0);
        }
        let mut considered: Vec<usize> = Vec::new();
        for p in cmd.options.iter().filter(|p| is_inherited(p)) {
            let d = self.declaring[&Arc::as_ptr(&p.origin.node)];
            if considered.contains(&d) {
                continue;
            }
            considered.push(d);
            let params = &self.declared[d];
            let has_all = params
                .iter()
                .all(|q| cmd.options.iter().any(|o| std::ptr::eq(&**o, *q)));
            if !has_all || params.iter().any(|q| q.required) {
                continue;
            }
            let g = match self.group_of[d] {
                Some(g) => g,
                None => {
                    let group = self.name_group(d, index, cmd, ty, enums, warnings);
                    self.list.push(group);
                    self.group_of[d] = Some(self.list.len() - 1);
                    self.list.len() - 1
                }
            };
            wanted.push(g);
        }
        let mut held = Vec::new();
        for g in wanted {
            let group = &self.list[g];
            // The group's field and accessor names are unique among groups; its setters
            // may not be.
            let setters = group.fields.iter().map(|f| unraw(&f.setter));
            if setters.clone().any(|n| methods.is_taken(&n)) {
                continue;
            }
            let names = [unraw(&group.field), unraw(&group.accessor)];
            for n in setters.chain(names) {
                methods.claim(&n, "_");
            }
            fields.claim(&unraw(&group.field), "_");
            held.push(g);
        }
        for &g in &held {
            self.list[g].first_user.get_or_insert(index);
        }
        held
    }

    /// Names the group of declaring node number `d`, first wanted by command `index`:
    /// `{Path}Options`, `Set{Path}Options`, field `{path}_options`.
    fn name_group(
        &mut self,
        d: usize,
        index: usize,
        cmd: &FlatCommand,
        ty: &Ident,
        enums: &mut Enums<'_>,
        warnings: &mut Vec<Diagnostic>,
    ) -> GroupPlan<'a> {
        let params = &self.declared[d];
        let by: &'a [String] = &params[0].origin.command;
        let base = upper_camel(by)
            .unwrap_or_else(|| upper_camel(&[self.doc.tool.name.as_str()]).unwrap_or_default());
        let at = params[0].origin.node.to_string();
        let group_ty = ident(&enums.types.claim_for(&format!("{base}Options"), "", &at).0);
        let setters_trait = ident(
            &enums
                .types
                .claim_for(&format!("Set{base}Options"), "", &at)
                .0,
        );
        let field = self
            .field_names
            .claim(&format!("{}_options", snake(&by.join("_"))), "_");
        let accessor = ident(&format!("{field}_mut"));
        let fields = group_field_plans(params, &ident(&field), &accessor, |param| {
            enums.enum_for(index, ty, cmd, param, warnings)
        });
        GroupPlan {
            ty: group_ty,
            setters_trait,
            field: ident(&field),
            accessor,
            fields,
            declared_by: Some(by),
            first_user: None,
        }
    }
}

/// Whether a parameter is an option declared on a group command for the commands below it.
fn is_inherited(param: &FlatParam) -> bool {
    matches!(
        param.kind,
        ParamPlacement::Option {
            scope: OptionScope::Inherited,
            ..
        }
    )
}

/// The fields of a group's struct, with the setters of the struct and of its trait (whose
/// accessor is `accessor` and whose setter of the whole group is `field`).
fn group_field_plans<'a>(
    params: &[&'a FlatParam],
    field: &Ident,
    accessor: &Ident,
    mut enum_for: impl FnMut(&FlatParam) -> Option<Ident>,
) -> Vec<FieldPlan<'a>> {
    let mut fields = Scope::default();
    let mut methods = Scope::with_reserved(RESERVED_METHODS);
    methods.claim(&unraw(accessor), "_");
    methods.claim(&unraw(field), "_");
    params
        .iter()
        .map(|param| {
            let name = fields.claim(&snake(&param.declared_name), "_");
            let setter = setter_name(&mut methods, &name);
            FieldPlan {
                param,
                field: ident(&name),
                setter,
                enum_ty: enum_for(param),
                group: None,
            }
        })
        .collect()
}
