package core

// MethodMaple is the search itself, which package session drives through an
// Engine; the comparison methods are package baselines'.
const MethodMaple = "maple"
