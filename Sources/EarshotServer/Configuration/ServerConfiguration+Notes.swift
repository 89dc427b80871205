import EarshotCore
import EarshotNotes
import Foundation

extension ServerConfiguration {
    /// The summaries/translation service these settings describe, and the managed `llama-server` it uses (nil
    /// with `llm-base-url` or `llm-managed off`); `Application.run` runs the latter as a child service.
    func makeNotes() -> (processor: NoteProcessor, managed: ManagedLlamaServer?) {
        let home = ModelHome.resolve(modelHome)
        let model: (any LanguageModel)?
        var managed: ManagedLlamaServer?
        var builtIn = false
        if let llmBaseURL, let url = URL(string: llmBaseURL) {
            model = ChatCompletionsClient(
                configuration: .init(
                    baseURL: url, apiKey: llmAPIKey, model: llmModel ?? "default", timeout: llmTimeout,
                    contextTokens: llmContext))
        } else if llmManaged {
            var options = ManagedLlamaServer.Configuration.installed(home: home)
            options.executable = llmServerPath ?? options.executable
            options.model = llmModelPath ?? options.model
            options.contextTokens = llmContext
            options.threads = llmThreads
            options.requestTimeout = llmTimeout
            builtIn = llmModelPath == nil
            managed = ManagedLlamaServer(configuration: options)
            model = managed
        } else {
            model = nil
        }
        let method: NoteProcessor.SummaryMethod =
            switch summaryMethod {
            case "llm": .languageModel
            case "extractive": .extractive
            // auto: SmolLM2-135M's summaries measured worse than the extractive ones (docs/notes.md); any other
            // model is trusted to lead, with the extractive summary as its fallback.
            default: builtIn ? Self.builtInSummaryMethod : .languageModel
            }
        return (NoteProcessor(model: model, configuration: .init(summaryMethod: method)), managed)
    }

    /// What `summary-method auto` picks for the built-in SmolLM2-135M (measured by `make bench-notes`).
    static let builtInSummaryMethod = NoteProcessor.SummaryMethod.extractive
}
