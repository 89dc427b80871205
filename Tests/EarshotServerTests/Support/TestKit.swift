// The test kit, seen by every file of this target as the helpers that used to live in Support/ were (TestPlatform,
// testContent, SpeechSynthesis), without an import in each file.
@_exported public import EarshotServerTestSupport
@_exported public import EarshotTestSupport
