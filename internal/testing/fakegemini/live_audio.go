// Spoken Live turns: the user's audio is "transcribed" by decoding it (the
// tests send the words themselves as the audio's bytes), and the answer
// comes back as audio with its output transcription.

package fakegemini

import (
	"encoding/base64"
	"strings"
)

// realtimeInput is a realtimeInput frame, keys in camelCase.
type realtimeInput struct {
	Text           string         `json:"text"`
	Audio          *blob          `json:"audio"`
	MediaChunks    []blob         `json:"mediaChunks"`
	AudioStreamEnd bool           `json:"audioStreamEnd"`
	ActivityEnd    map[string]any `json:"activityEnd"`
}

type blob struct {
	MimeType string `json:"mimeType"`
	Data     string `json:"data"` // base64
}

// spokenTurn collects a spoken turn's audio; spoken stays set once the
// user has spoken, so the model answers in audio.
type spokenTurn struct {
	audio  []byte
	spoken bool
}

// hear takes a realtimeInput frame: audio is kept, and the end of the
// stream or of the activity ends the turn with what was said.
func (s *spokenTurn) hear(in *realtimeInput) (said string, ended bool) {
	chunks := in.MediaChunks
	if in.Audio != nil {
		chunks = append(chunks, *in.Audio)
	}
	for _, c := range chunks {
		if b, err := base64.StdEncoding.DecodeString(c.Data); err == nil {
			s.audio = append(s.audio, b...)
		}
	}
	if !in.AudioStreamEnd && in.ActivityEnd == nil || len(s.audio) == 0 {
		return "", false
	}
	said = strings.TrimSpace(string(s.audio))
	s.audio, s.spoken = nil, true
	return said, true
}

// spokenAnswer is a piece of the answer as audio (the words as bytes)
// with its transcription.
func spokenAnswer(piece string) map[string]any {
	return map[string]any{"serverContent": map[string]any{
		"modelTurn": map[string]any{"role": "model", "parts": []any{map[string]any{
			"inlineData": map[string]any{"mimeType": "audio/pcm;rate=24000", "data": base64.StdEncoding.EncodeToString([]byte(piece))}}}},
		"outputTranscription": map[string]any{"text": piece},
	}}
}
