package main

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The custom resource widgets.bench.informer.test/v1 (kind Widget, namespaced) that benches/scale.rs
// creates, as a kubebuilder operator declares it: hand-written types, hand-written deep copies (what
// controller-gen would generate), registered in a scheme of their own.

var widgetGroupVersion = schema.GroupVersion{Group: "bench.informer.test", Version: "v1"}

type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   WidgetSpec   `json:"spec,omitempty"`
	Status WidgetStatus `json:"status,omitempty"`
}

type WidgetSpec struct {
	Replicas int32             `json:"replicas,omitempty"`
	Image    string            `json:"image,omitempty"`
	Settings map[string]string `json:"settings,omitempty"`
	Ports    []WidgetPort      `json:"ports,omitempty"`
	Weight   float64           `json:"weight,omitempty"`
	Paused   bool              `json:"paused,omitempty"`
}

type WidgetPort struct {
	Name     string `json:"name,omitempty"`
	Port     int32  `json:"port"`
	Protocol string `json:"protocol,omitempty"`
}

type WidgetStatus struct {
	ObservedGeneration int64              `json:"observedGeneration,omitempty"`
	ReadyReplicas      int32              `json:"readyReplicas,omitempty"`
	Conditions         []metav1.Condition `json:"conditions,omitempty"`
}

type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Widget `json:"items"`
}

func (in *WidgetSpec) DeepCopyInto(out *WidgetSpec) {
	*out = *in
	if in.Settings != nil {
		out.Settings = make(map[string]string, len(in.Settings))
		for k, v := range in.Settings {
			out.Settings[k] = v
		}
	}
	if in.Ports != nil {
		out.Ports = make([]WidgetPort, len(in.Ports))
		copy(out.Ports, in.Ports) // WidgetPort holds no pointers
	}
}

func (in *WidgetStatus) DeepCopyInto(out *WidgetStatus) {
	*out = *in
	if in.Conditions != nil {
		out.Conditions = make([]metav1.Condition, len(in.Conditions))
		for i := range in.Conditions {
			in.Conditions[i].DeepCopyInto(&out.Conditions[i])
		}
	}
}

func (in *Widget) DeepCopyInto(out *Widget) {
	*out = *in
	out.TypeMeta = in.TypeMeta
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	in.Spec.DeepCopyInto(&out.Spec)
	in.Status.DeepCopyInto(&out.Status)
}

func (in *Widget) DeepCopy() *Widget {
	if in == nil {
		return nil
	}
	out := new(Widget)
	in.DeepCopyInto(out)
	return out
}

func (in *Widget) DeepCopyObject() runtime.Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}

func (in *WidgetList) DeepCopyInto(out *WidgetList) {
	*out = *in
	out.TypeMeta = in.TypeMeta
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	if in.Items != nil {
		out.Items = make([]Widget, len(in.Items))
		for i := range in.Items {
			in.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
}

func (in *WidgetList) DeepCopy() *WidgetList {
	if in == nil {
		return nil
	}
	out := new(WidgetList)
	in.DeepCopyInto(out)
	return out
}

func (in *WidgetList) DeepCopyObject() runtime.Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// addWidgetTypes registers the types as a kubebuilder groupversion_info.go's SchemeBuilder does
// (controller-runtime's scheme.Builder: AddKnownTypes, then metav1.AddToGroupVersion).
func addWidgetTypes(s *runtime.Scheme) error {
	s.AddKnownTypes(widgetGroupVersion, &Widget{}, &WidgetList{})
	metav1.AddToGroupVersion(s, widgetGroupVersion)
	return nil
}
