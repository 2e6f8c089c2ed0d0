fn main() {
    std::process::exit(a2a_sim::cli::main());
}
