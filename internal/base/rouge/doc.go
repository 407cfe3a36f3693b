// Package rouge computes ROUGE-1 exactly as Python's rouge_score does,
// with NLTK's Porter stemmer reproduced bit for bit, and says when ADK
// stems the words first. It serves ADK's response_match_score and the
// run diff's answer similarity.
package rouge
