package core

// MethodMaple is the search itself, which package runs drives through an
// Engine; the comparison methods are package baselines'.
const MethodMaple = "maple"
