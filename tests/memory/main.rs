//! Memory and allocation figures, measured with a counting allocator. The allocator is global
//! to the process, so every figure is taken by the one test of this binary, one part after the
//! other, with no other test allocating meanwhile.

mod definitions;
mod large_document;
mod per_call;
mod redact;

#[global_allocator]
static ALLOCATOR: atip_tests::alloc::Counting = atip_tests::alloc::Counting;

#[test]
fn memory_figures_each_measured_alone() {
    large_document::warnings_on_a_large_document_cost_no_second_parse();
    per_call::a_loaded_call_allocates_what_a_generated_call_does();
    definitions::definitions_reserve_about_what_they_write();
    redact::redacting_a_text_holds_no_copy_of_it();
}
