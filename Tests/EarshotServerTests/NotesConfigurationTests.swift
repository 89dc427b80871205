import EarshotCore
import EarshotNotes
import Foundation
import Testing

@testable import EarshotServer

/// The language-model settings (llm-*, summary-method): defaults, parsing, problems, and what they build.
@Suite struct NotesConfigurationTests {
    let spec = CommandSpec(name: "earshot serve", abstract: "Serve.", options: ServerConfiguration.commandLineOptions)

    func load(_ arguments: [String], environment: [String: String] = [:]) throws(ConfigurationError)
        -> ServerConfiguration
    {
        try ServerConfiguration.load(arguments: try! spec.parse(arguments), environment: environment)
    }

    @Test func defaultsRunTheBuiltInModelWithExtractiveSummariesLeading() throws {
        let config = try load(["--model-home", "/opt/earshot"])
        #expect(config.llmBaseURL == nil && config.llmManaged && config.llmContext == 4096)
        let (processor, managed) = config.makeNotes()
        let server = try #require(managed)
        #expect(server.configuration.executable == "/opt/earshot/llama/bin/llama-server")
        #expect(server.configuration.model == "/opt/earshot/models/SmolLM2-135M-Instruct.Q4_1.gguf")
        #expect(processor.model?.name == "SmolLM2-135M-Instruct.Q4_1")
        #expect(processor.configuration.summaryMethod == ServerConfiguration.builtInSummaryMethod)
    }

    @Test func aBaseURLSelectsAnOpenAICompatibleProviderAndTheModelLeads() throws {
        let config = try load(
            [
                "--llm-base-url", "http://10.0.0.5:8000/v1/", "--llm-model", "qwen2.5-7b-instruct", "--llm-timeout",
                "90s",
            ],
            environment: ["EARSHOT_LLM_API_KEY": "sk-local"])
        #expect(config.llmBaseURL == "http://10.0.0.5:8000/v1")
        let (processor, managed) = config.makeNotes()
        #expect(managed == nil)
        let client = try #require(processor.model as? ChatCompletionsClient)
        #expect(client.configuration.apiKey == "sk-local")
        #expect(client.configuration.model == "qwen2.5-7b-instruct")
        #expect(client.configuration.timeout == .seconds(90))
        #expect(processor.configuration.summaryMethod == .languageModel)
    }

    @Test func managedOffMeansNoModel() throws {
        let (processor, managed) = try load(["--llm-managed", "off", "--summary-method", "llm"]).makeNotes()
        #expect(managed == nil && processor.model == nil)
    }

    @Test func badValuesAreReportedTogether() {
        #expect {
            try load([
                "--llm-base-url", "ftp://x", "--llm-managed", "maybe", "--summary-method", "best", "--llm-context",
                "10",
            ])
        } throws: { error in
            let settings = (error as? ConfigurationError)?.issues.map(\.setting) ?? []
            return settings == ["llm-base-url", "llm-managed", "llm-context", "summary-method"]
        }
        #expect {
            try load(["--llm-base-url", "https://api.openai.com/v1"])
        } throws: { error in
            (error as? ConfigurationError)?.issues.first?.message.contains("name the model") == true
        }
    }
}
