public import EarshotCore

extension ModelHome {
    /// `HOME/llama/bin/llama-server`, the binary `scripts/setup-llm` builds for ``ManagedLlamaServer``.
    public var llamaServer: String { file("llama/bin/llama-server") }

    /// `HOME/models/SmolLM2-135M-Instruct.Q4_1.gguf`, the built-in language model `scripts/setup-llm` installs.
    public var builtInLanguageModel: String { model(ManagedLlamaServer.Configuration.builtInModelFile) }
}
